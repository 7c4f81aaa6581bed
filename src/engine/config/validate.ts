/** Rule checks of the loaded objects by their kinds, merged with the loading diagnostics. */
import { formatLocation, type Diagnostic } from '../../core/diagnostics.js';
import type { CheckContext, PortalFacts } from '../../kinds/toolkit/contract.js';
import type { LoadedConfig } from './load.js';
import { limitCodes } from './schema-diagnostics.js';

function order(diagnostic: Diagnostic): [string, number, number] {
  const location = diagnostic.location;
  return [location?.file ?? '', location?.line ?? 0, location?.column ?? 0];
}

const place = (diagnostic: Diagnostic): string => formatLocation(diagnostic.location);

/**
 * Sorted by file, line and column, so output follows the files; each once (an overlay's problem
 * found for each layer it is merged into was said as many times).
 */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  const once = diagnostics.filter((diagnostic) => {
    const key = JSON.stringify([diagnostic.severity, diagnostic.code, diagnostic.message, diagnostic.location, diagnostic.address, diagnostic.value]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return once.sort((a, b) => {
    const [fileA, lineA, columnA] = order(a);
    const [fileB, lineB, columnB] = order(b);
    return fileA < fileB ? -1 : fileA > fileB ? 1 : lineA - lineB || columnA - columnB;
  });
}

/**
 * Every problem of the config: the loading diagnostics plus each object's rule checks against
 * `portal` (default: the facts the config declares; at plan time, the live portal's). Values
 * are redacted. Pure: the same config and facts give the same diagnostics.
 */
export function validateConfig(loaded: LoadedConfig, portal: Partial<PortalFacts> = loaded.facts): Diagnostic[] {
  const context: CheckContext = { portal, all: loaded.objects, locate: (obj, path) => loaded.locate(obj, path) };
  const checked: Diagnostic[] = [];
  for (const obj of loaded.objects) {
    const kind = loaded.kinds.byName.get(obj.kind);
    if (!kind) continue;
    checked.push(...kind.check(obj, context));
  }
  // A reference left unresolved keeps its text, which a rule may then refuse at the same place:
  // one problem, said once (as load.ts does for the schema).
  const references = new Set(loaded.diagnostics.filter((diagnostic) => diagnostic.code.startsWith('reference/')).map(place));
  const ruleChecked = references.size === 0 ? checked : checked.filter((diagnostic) => !references.has(place(diagnostic)));
  // A limit the schema carries for editors and a rule checks too is reported once, in the rule's words.
  const ruled = new Set(ruleChecked.map(place));
  const loading = loaded.diagnostics.filter((diagnostic) => !limitCodes.has(diagnostic.code) || !ruled.has(place(diagnostic)));
  return sortDiagnostics(redactDiagnostics([...loading, ...ruleChecked], loaded.redact));
}

/**
 * Diagnostics with no resolved reference's value in their texts: a message, address or value
 * may quote a name or id written as `${env:...}` (a name the plan could not find, an address).
 */
export function redactDiagnostics(diagnostics: readonly Diagnostic[], redact: LoadedConfig['redact']): Diagnostic[] {
  return diagnostics.map(({ location, ...texts }) => ({ ...redact(texts), ...(location ? { location } : {}) }));
}
