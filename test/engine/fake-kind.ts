import type { Change, DesiredObject, Kind } from '../../src/kinds/toolkit/contract.js';
import type { JsonValue } from '../../src/core/json.js';
import { deepEqual } from '../../src/core/json.js';
import { executePlan } from '../../src/engine/apply/execute.js';
import type { PlannedOperation } from '../../src/engine/plan/plan.js';

/** A minimal kind for engine tests: a value set with one request, removal with another. */
export function fakeKind(name = 'fake', deps: (obj: DesiredObject) => string[] = () => []): Kind {
  return {
    name,
    operation: { id: 'E0', name: `${name} update` },
    // Engine tests build their objects directly: the kind has no place in the config.
    config: [],
    check: () => [],
    read: async () => null,
    inSync: (desired, live) => deepEqual(desired.value, live),
    change: (desired, live): Change => {
      const form: Record<string, string> = desired.absent ? {} : { value: JSON.stringify(desired.value) };
      return {
        action: desired.absent ? 'delete' : live === null ? 'create' : 'update',
        before: live,
        after: desired.value,
        request: { method: 'POST', path: `/fake/${desired.ids['id']}/${desired.absent ? 'remove' : 'update'}`, form, response: 'json', idempotent: true },
      };
    },
    dependsOn: deps,
  };
}

export function desired(id: string, value: JsonValue, extra: Partial<DesiredObject> = {}): DesiredObject {
  return {
    kind: 'fake',
    address: `fake[${id}]`,
    ids: { id },
    value,
    absent: value === null,
    destructive: false,
    source: { file: 'test.yaml', line: 1, column: 1 },
    ...extra,
  };
}

/** A planned operation for executor tests: an update at `address`, after `dependsOn`. */
export function plannedOperation(address: string, dependsOn: string[] = []): PlannedOperation {
  return {
    address,
    kind: 'fake',
    action: 'update',
    operation: { id: 'E0', name: 'fake' },
    request: { method: 'POST', path: `/x/${address}`, form: {}, response: 'json', idempotent: true },
    before: null,
    after: 1,
    patch: [],
    destructive: false,
    dependsOn,
  };
}

/**
 * executePlan sends through a client and records through a writer; these fakes hand the tests
 * the operation behind each request and record (the request path is `/x/<address>`).
 */
export function executeWithFakes(
  operations: PlannedOperation[],
  fakes: { send(op: PlannedOperation): Promise<unknown>; record(op: PlannedOperation): Promise<unknown>; stopRequested?: () => boolean },
  parallelism: number,
) {
  const byAddress = new Map(operations.map((o) => [o.address, o]));
  const opAt = (address: string) => byAddress.get(address) as PlannedOperation;
  return executePlan(operations, {
    client: { send: async (request) => (await fakes.send(opAt(request.path.slice('/x/'.length))), { type: 'json', body: {} }) },
    recorder: { record: (address) => fakes.record(opAt(address)) },
    parallelism,
    ...(fakes.stopRequested ? { stopRequested: fakes.stopRequested } : {}),
  });
}
