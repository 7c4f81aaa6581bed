/**
 * Recording what the portal has without writing to it, so drift can be accepted (README
 * "Drift"):
 *
 * - adopt-on-match: `apply` records the live value of each targeted object the configuration
 *   already matches when the state does not hold it (drift resolved by adopting the live value,
 *   or an object not recorded yet). Without it, editing the YAML to the portal's value left the
 *   drift reported forever.
 * - `apply --refresh-only` (Terraform's word): records the live value of every targeted managed
 *   object that drifted or is not recorded, whatever the configuration asks, after showing what
 *   it will record and asking; nothing is sent to the portal.
 * - names: both also record the names the plan resolved where the state holds others, so that
 *   `plan --refresh=false` resolves them (names.ts, recordedNames).
 *
 * Choosing the records is pure (`liveRecords`); writing them is one state write (`recordLive`);
 * the use cases that call them are in apply.ts.
 */
import { deepEqual, type JsonValue } from '../../core/json.js';
import { newState, StateWriter, type RecordedName, type StateDocument, type StateEntry, type StateStore } from '../../state/index.js';
import { isTargeted, type DriftEntry } from '../plan/plan.js';
import type { PreparedPlan } from '../plan/prepare.js';
import { concealer } from '../plan/recorded-values.js';
import type { ResolvedNameFields } from '../read/names.js';

/** One live value to record at an address. */
export interface LiveRecord {
  address: string;
  kind: string;
  /** The object as a person knows it, where the reads told. */
  label?: string;
  /** What the state holds now; undefined when it holds nothing for the address. */
  before: JsonValue | undefined;
  /** What the portal has. */
  after: JsonValue;
  /** `drift`: the record differs from the portal; `new`: the address is not recorded yet. */
  reason: 'drift' | 'new';
  /** Whether the configuration asks for this very value (adopt-on-match). */
  matchesConfig: boolean;
}

/**
 * The live values to record: targeted objects the plan read, whose record differs from the
 * portal (a drift entry) or is missing. `adoptOnly`: only those the configuration already
 * matches (no operation planned), as `apply` adopts them; addresses with an unknown outcome are
 * left to its own check then.
 */
export function liveRecords(prepared: PreparedPlan, { adoptOnly }: { adoptOnly: boolean }): LiveRecord[] {
  const { plan, basis, recorded } = prepared;
  if (!plan.refreshed) return [];
  const planned = new Set(plan.operations.map((op) => op.address));
  const drifted = new Map<string, DriftEntry>(plan.drift.map((entry) => [entry.address, entry]));
  const resources = recorded?.resources ?? {};
  const marked = recorded?.unknownOutcomes ?? {};
  const records: LiveRecord[] = [];
  for (const obj of prepared.objects) {
    if (!isTargeted(obj.address, plan.targets) || !basis.has(obj.address)) continue;
    const matchesConfig = !planned.has(obj.address);
    if (adoptOnly && (!matchesConfig || Object.prototype.hasOwnProperty.call(marked, obj.address))) continue;
    const drift = drifted.get(obj.address);
    const live = basis.get(obj.address) ?? null;
    const label = prepared.labels.get(obj.address);
    const named = { address: obj.address, kind: obj.kind, ...(label ? { label } : {}) };
    if (drift) records.push({ ...named, before: drift.before, after: live, reason: 'drift', matchesConfig });
    else if (!Object.prototype.hasOwnProperty.call(resources, obj.address)) records.push({ ...named, before: undefined, after: live, reason: 'new', matchesConfig });
  }
  return records.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
}

/**
 * The state entry for a live value read now (`observedAt`), keeping when it was last applied;
 * with the names that read resolved on the way to it (none: declared by id now).
 */
export function observedEntry(previous: StateEntry | undefined, kind: string, ids: Readonly<Record<string, string>>, live: JsonValue, observedAt: string, names?: readonly ResolvedNameFields[]): StateEntry {
  return entryWithNames({ ...previous, kind, ids: { ...ids }, value: live, status: live === null ? 'absent' : 'present', observedAt }, namesToRecord(names));
}

/** What the state records of names as a read resolved them: every field the portal showed. */
function namesToRecord(names: readonly ResolvedNameFields[] | undefined): RecordedName[] | undefined {
  return names?.length ? names.map(({ noun, fields, id, field }) => ({ noun, name: { ...fields }, id, ...(field === undefined ? {} : { field }) })) : undefined;
}

/** `entry` with `names`, or without any; the entry itself when it has none to drop (every observed entry passes here). */
function entryWithNames(entry: StateEntry, names: RecordedName[] | undefined): StateEntry {
  if (names) return { ...entry, names };
  if (entry.names === undefined) return entry;
  const { names: _previous, ...rest } = entry;
  return rest;
}

/**
 * The targeted recorded objects whose recorded names are not those the plan resolved (declared
 * by name since the last read, by other fields, or by id again: none), with the names to record.
 * Written even when nothing else is, or the next `--refresh=false` could not resolve them.
 */
function renamedEntries(prepared: PreparedPlan): Map<string, RecordedName[] | undefined> {
  const renamed = new Map<string, RecordedName[] | undefined>();
  const resources = prepared.recorded?.resources ?? {};
  if (!prepared.plan.refreshed) return renamed;
  for (const obj of prepared.objects) {
    const entry = resources[obj.address];
    if (!entry || !isTargeted(obj.address, prepared.plan.targets)) continue;
    const names = namesToRecord(prepared.names.get(obj.address));
    if (!deepEqual(names ?? null, entry.names ?? null)) renamed.set(obj.address, names);
  }
  return renamed;
}

/** The state with `records` written in (values concealed as every record is). Pure. */
export function withLiveRecords(state: StateDocument, records: readonly LiveRecord[], prepared: PreparedPlan, conceal: (value: JsonValue) => JsonValue): StateDocument {
  const ids = new Map(prepared.objects.map((obj) => [obj.address, obj.ids]));
  const observedAt = new Date().toISOString();
  const resources = { ...state.resources };
  for (const record of records) {
    resources[record.address] = observedEntry(resources[record.address], record.kind, ids.get(record.address) ?? {}, conceal(record.after), observedAt, prepared.names.get(record.address));
  }
  return { ...state, resources };
}

/**
 * Writes `records`, and the names the plan resolved where the state records others
 * (renamedEntries), into the state in one write (one new serial); the state as written.
 */
export async function recordLive(prepared: PreparedPlan, records: readonly LiveRecord[], request: { store: StateStore; url: string }): Promise<StateDocument | undefined> {
  const renamed = renamedEntries(prepared);
  if (records.length === 0 && renamed.size === 0) return prepared.recorded;
  const conceal = concealer(prepared.config.redact);
  const initial = prepared.recorded ?? newState({ url: request.url, ...(prepared.portal?.id ? { id: prepared.portal.id } : {}) });
  const writer = new StateWriter(request.store, initial, { conceal });
  return writer.update((state) => {
    const next = withLiveRecords(state, records, prepared, conceal);
    for (const [address, names] of renamed) {
      const entry = next.resources[address];
      if (entry) next.resources[address] = entryWithNames(entry, names);
    }
    return next;
  });
}
