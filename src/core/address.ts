/**
 * The structure of an address (README "Addresses"): steps separated by dots, each a name with an
 * optional id in brackets, e.g. `collaboration[c0ffee].workspace[w1].portalGroupLink`. An id may
 * hold dots, slashes and brackets (`organization.resource[old-banner.png]`,
 * `collaboration[c].invitation[https://[::1]:7443/portal]`): it ends at the `]` that closes the
 * step, the one followed by a dot or the end of the address.
 */

export interface AddressStep {
  name: string;
  /** The id in brackets; undefined for a step without brackets. */
  id?: string;
}

const stepName = /^[A-Za-z][A-Za-z0-9_-]*/;

/** The steps of an address, or undefined when it is not one. */
export function parseAddress(text: string): AddressStep[] | undefined {
  const steps: AddressStep[] = [];
  let rest = text;
  while (rest.length > 0) {
    const name = stepName.exec(rest)?.[0];
    if (!name) return undefined;
    rest = rest.slice(name.length);
    if (rest.startsWith('[')) {
      let close = -1;
      for (let index = rest.indexOf(']'); index !== -1; index = rest.indexOf(']', index + 1)) {
        if (index + 1 === rest.length || rest[index + 1] === '.') {
          close = index;
          break;
        }
      }
      if (close <= 1) return undefined;
      steps.push({ name, id: rest.slice(1, close) });
      rest = rest.slice(close + 1);
    } else {
      steps.push({ name });
    }
    if (rest.startsWith('.')) {
      rest = rest.slice(1);
      if (rest.length === 0) return undefined;
    } else if (rest.length > 0) {
      return undefined;
    }
  }
  return steps.length > 0 ? steps : undefined;
}

/** The address's shape without its ids: `user[].task[]` for `user[jsmith].task[a1]`. One shape per kind. */
export function addressShape(address: string): string | undefined {
  return parseAddress(address)
    ?.map((step) => (step.id === undefined ? step.name : `${step.name}[]`))
    .join('.');
}

/**
 * Whether `target` selects `address`: its steps are the address's first steps, a step without an
 * id selecting every id (`role` selects `role[r1]`; `collaboration[c1]` everything inside it).
 * Whole steps only: `rol` selects nothing, and `user[js]` is not `user[jsmith]`.
 */
export function selects(target: string, address: string): boolean {
  const wanted = parseAddress(target);
  const steps = parseAddress(address);
  if (!wanted || !steps || wanted.length > steps.length) return false;
  return wanted.every((step, index) => {
    const actual = steps[index];
    return actual !== undefined && step.name === actual.name && (step.id === undefined || step.id === actual.id);
  });
}
