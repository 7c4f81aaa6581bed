/**
 * `portalctl state show [--serial N] | list | history | unlock [LOCK_ID] | rm ADDR... | mv FROM TO
 * | push SOURCE | pull DESTINATION`, on a file or a PostgreSQL state alike.
 */
import { addressShape, parseAddress } from '../../core/address.js';
import { terminalText } from '../../engine/render/escape.js';
import { UsageError } from '../../core/errors.js';
import { didYouMean } from '../../core/suggest.js';
import { counted } from '../../core/words.js';
import {
  NotAStateFileError,
  StateError,
  copyChanges,
  describeHolder,
  forgetResource,
  moveResource,
  openStateStore,
  withStateLock,
  type StateDocument,
  type StateStore,
} from '../../state/index.js';
import type { CommandIO } from '../io.js';
import { isFleet, requestedEnvironments, singleEnvironment } from '../environments.js';
import { readEnvironments, ConfigError, type Environment } from '../../engine/config/index.js';
import { commandLine, stateStore, type SharedOptions } from './common.js';
import { parseDuration, parsePositiveInt } from '../flag-values.js';

export interface StateOptions extends SharedOptions {
  serial?: string;
  dryRun?: boolean;
  sourceName?: string;
  destinationName?: string;
  /** With --env: the config (file or directory) that declares the environments. */
  config?: string;
  /** `state show`, `list`, `history`: text (default) or json. */
  format?: 'text' | 'json';
}

/** `--env NAME`: the state of that environment, declared in the config of the current directory. */
async function stateEnvironment(options: StateOptions, io: CommandIO): Promise<Environment | undefined> {
  const request = requestedEnvironments(options, io.env);
  if (isFleet(request)) throw new UsageError('state works on one state: name one environment with --env NAME.');
  const name = singleEnvironment(request);
  if (name === undefined) {
    // Read only to find an environment's state: without one it would be passed over, and the state at --state shown instead.
    if (options.config !== undefined) {
      throw new UsageError(`--config ${options.config} names the config that declares the environment of --env; give --env NAME with it for that environment's state, or leave it out for the state at --state (default portalctl.state.json).`);
    }
    return undefined;
  }
  const declared = await readEnvironments([options.config ?? '.'], { cwd: io.cwd, env: io.env });
  if (declared.diagnostics.some((diagnostic) => diagnostic.severity === 'error')) throw new ConfigError(declared.diagnostics);
  const environment = declared.get(name);
  if (!environment) throw new UsageError(`No environment named ${name} in the config at ${options.config ?? '.'}; declared: ${declared.names.join(', ') || 'none'} (--config names the config).${didYouMean(name, declared.names)}`);
  return environment;
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** `The state has no resource at rolse[r1]. Did you mean "role[r1]"?` */
function unknownAddress(state: StateDocument, address: string, outcome: string): StateError {
  const known = [...Object.keys(state.resources), ...Object.keys(state.unknownOutcomes ?? {})];
  return new StateError(`The state has no resource at ${address}; ${outcome}.${didYouMean(address, known)}`);
}

export async function stateCommand(action: string, args: readonly string[], options: StateOptions, io: CommandIO): Promise<number> {
  const store = stateStore(options, io, await stateEnvironment(options, io));
  try {
    return await runAction(action, args, options, io, store);
  } finally {
    await store.close();
  }
}

async function runAction(action: string, args: readonly string[], options: StateOptions, io: CommandIO, store: StateStore): Promise<number> {
  const lockTimeoutMs = parseDuration(options.lockTimeout, '--lock-timeout');
  switch (action) {
    case 'unlock': {
      const status = await store.lockStatus();
      const removed = await store.forceUnlock(args[0]);
      if (removed) io.stdout(`Removed the lock of ${describeHolder(removed)}.\n`);
      else if (status.state === 'unreadable') io.stdout(`Removed the lock ${status.where}, which held no readable lock record.\n`);
      else io.stdout(`The state ${store.describe()} is not locked.\n`);
      return 0;
    }
    case 'history': {
      const entries = await store.history();
      if (options.format === 'json') {
        io.stdout(json({ state: store.describe(), serials: entries }));
        return 0;
      }
      if (entries.length === 0) {
        io.stdout(`No recorded history at ${store.describe()}.\n`);
        return 0;
      }
      io.stdout(`# ${store.describe()}: ${counted(entries.length, 'serial')} kept, newest first\n`);
      io.stdout('serial\twritten at\tresources\tchanged\tcommand\n');
      for (const entry of entries) io.stdout(`${entry.serial}\t${entry.writtenAt}\t${entry.resources}\t${entry.changed}\t${terminalText(entry.command)}\n`);
      return 0;
    }
    case 'show': {
      if (options.serial !== undefined) {
        const serial = parsePositiveInt(options.serial, '--serial');
        const old = await store.readSerial(serial);
        if (!old) {
          if (!(await store.read())) {
            const copy = await store.leftCopyHint();
            // Listed, but with no state to undo the later changes from (its file or row removed).
            if ((await store.history()).some((entry) => entry.serial === serial)) {
              throw new StateError(
                `Serial ${serial} is listed in the history at ${store.describe()}, but there is no state there to rebuild it from: ` +
                  `the history holds what each write changed, undone from the current state. ${copy ?? 'Restore the state from a copy to see its earlier serials.'}`,
              );
            }
            throw new StateError(`No recorded state at ${store.describe()}, so no serial ${serial} to show.${copy ? ` ${copy}` : ''}`);
          }
          throw new StateError(`Serial ${serial} is not kept at ${store.describe()}; \`portalctl state history\` lists the kept ones.`);
        }
        return showState(old, args[0], options, io);
      }
      const state = await store.read();
      if (!state) {
        if (args[0] !== undefined) throw new StateError(`No recorded state at ${store.describe()}; nothing to show at ${args[0]}.`);
        io.stdout(options.format === 'json' ? json(null) : `No recorded state at ${store.describe()}.\n`);
        return 0;
      }
      return showState(state, args[0], options, io);
    }
    case 'list': {
      const state = await store.read();
      const resources = Object.entries(state?.resources ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
      // Outcomes not known are listed apart: the next plan checks them against the portal first.
      const unknown = Object.entries(state?.unknownOutcomes ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
      if (options.format === 'json') {
        io.stdout(
          json({
            state: store.describe(),
            ...(state ? { lineage: state.lineage, serial: state.serial, portal: state.portal } : { lineage: null, serial: null, portal: null }),
            resources: resources.map(([address, entry]) => ({ address, kind: entry.kind, status: entry.status ?? 'present', appliedAt: entry.appliedAt ?? null, observedAt: entry.observedAt ?? null })),
            unknownOutcomes: unknown.map(([address, mark]) => ({ address, kind: mark.kind, operation: mark.operation, reason: mark.reason, since: mark.since })),
          }),
        );
        return 0;
      }
      if (!state) {
        io.stdout(`No recorded state at ${store.describe()}.\n`);
        return 0;
      }
      io.stdout(`# ${store.describe()}: lineage ${state.lineage}, serial ${state.serial}, portal ${state.portal.url}; ${counted(resources.length, 'resource')}\n`);
      io.stdout('address\tkind\tstatus\tlast applied or seen\n');
      // Addresses and reasons may hold the portal's text: shown, never acted on by the terminal.
      for (const [address, entry] of resources) {
        io.stdout(`${terminalText(address)}\t${entry.kind}\t${entry.status ?? 'present'}\t${entry.appliedAt ?? entry.observedAt ?? ''}\n`);
      }
      for (const [address, mark] of unknown) {
        io.stdout(`${terminalText(address)}\t${mark.kind}\toutcome unknown (${terminalText(mark.reason)})\t${mark.since}\n`);
      }
      return 0;
    }
    case 'rm':
    case 'mv':
      return surgery(action, args, options, io, store, lockTimeoutMs);
    case 'push':
    case 'pull':
      return copyState(action, args[0] ?? '', options, io, store, lockTimeoutMs);
    default:
      throw new UsageError(`Unknown state action "${action}".`);
  }
}

/** `state rm` / `state mv`: under the lock (refused while another run holds it), one new serial. */
async function surgery(action: 'rm' | 'mv', args: readonly string[], options: StateOptions, io: CommandIO, store: StateStore, timeoutMs: number): Promise<number> {
  const change = (state: StateDocument): { next: StateDocument; lines: string[] } => {
    if (action === 'mv') {
      const [from = '', to = ''] = args;
      return { next: moveResource(state, from, checkedDestination(state, from, to)), lines: [`${from} -> ${to}`] };
    }
    // A request marked in flight at an address with no record is forgotten too (the plan says to).
    const unknown = args.filter((address) => !Object.hasOwn(state.resources, address) && !Object.hasOwn(state.unknownOutcomes ?? {}, address));
    const [first] = unknown;
    if (first !== undefined && unknown.length === 1) throw unknownAddress(state, first, 'nothing was removed');
    if (unknown.length) throw new StateError(`The state has no resource at ${unknown.join(', ')}; nothing was removed.`);
    return { next: args.reduce(forgetResource, state), lines: args.map((address) => `- ${address}`) };
  };
  const verb = action === 'rm' ? 'forget' : 'move';
  if (options.dryRun) {
    const state = await store.read();
    if (!state) throw new StateError(`No recorded state at ${store.describe()}; nothing to ${verb}.`);
    const { lines } = change(state);
    io.stdout(`Would ${verb} in ${store.describe()} (serial ${state.serial}; nothing was changed):\n${lines.map((line) => `  ${line}\n`).join('')}`);
    return 0;
  }
  return withStateLock(store, { operation: `state ${action}`, timeoutMs }, async () => {
    const state = await store.read();
    if (!state) throw new StateError(`No recorded state at ${store.describe()}; nothing to ${verb}.`);
    const { next, lines } = change(state);
    const written = await store.write(next);
    io.stdout(`${action === 'rm' ? 'Forgot' : 'Moved'} in ${store.describe()}, now serial ${written.serial} (the portal was not touched):\n${lines.map((line) => `  ${line}\n`).join('')}`);
    return 0;
  });
}

/**
 * `state show [ADDR]`: the whole document as JSON, or one resource (text: its fields as YAML;
 * json: the entry with its address).
 */
async function showState(state: StateDocument, address: string | undefined, options: StateOptions, io: CommandIO): Promise<number> {
  if (address === undefined) {
    io.stdout(json(state));
    return 0;
  }
  const entry = Object.prototype.hasOwnProperty.call(state.resources, address) ? state.resources[address] : undefined;
  const mark = Object.prototype.hasOwnProperty.call(state.unknownOutcomes ?? {}, address) ? state.unknownOutcomes?.[address] : undefined;
  if (!entry && !mark) throw unknownAddress(state, address, options.serial === undefined ? 'nothing to show' : `nothing to show at serial ${state.serial}`);
  const shown = { address, ...(entry ? { ...entry, status: entry.status ?? 'present' } : {}), ...(mark ? { unknownOutcome: mark } : {}) };
  if (options.format === 'json') {
    io.stdout(json(shown));
    return 0;
  }
  const { stringify } = await import('yaml');
  const { address: _address, ...fields } = shown;
  io.stdout(`# ${address} (serial ${state.serial})\n${stringify(fields, { lineWidth: 0 })}`);
  return 0;
}

/**
 * The destination of `state mv`: an address of the same kind as the source (the same shape,
 * `role[]` for `role[r1]`: each kind has its own), not taken. A record moved across kinds would
 * be read by the wrong kind at the next plan.
 */
function checkedDestination(state: StateDocument, from: string, to: string): string {
  const entry = Object.prototype.hasOwnProperty.call(state.resources, from) ? state.resources[from] : undefined;
  if (!entry) throw unknownAddress(state, from, 'nothing was moved');
  if (!parseAddress(to)) {
    throw new UsageError(`${JSON.stringify(to)} is not an address (steps like role[r7HkQ2] or collaboration[c].workspace[w], separated by dots); nothing was moved.`);
  }
  const shape = addressShape(from);
  if (addressShape(to) !== shape) {
    const sameKind = Object.entries(state.resources).filter(([address, other]) => other.kind === entry.kind && address !== from).map(([address]) => address);
    const example = sameKind[0] ?? from;
    throw new UsageError(
      `${to} is not an address of the kind ${entry.kind} (its addresses look like ${example}); state mv moves a record within its kind, nothing was moved.${didYouMean(to, sameKind)}`,
    );
  }
  return to;
}

/** `state push SOURCE` (into --state) / `state pull DESTINATION` (from --state): lineage and serial kept. */
async function copyState(action: 'push' | 'pull', other: string, options: StateOptions, io: CommandIO, store: StateStore, timeoutMs: number): Promise<number> {
  if (!other) throw new UsageError(`state ${action} needs a ${action === 'push' ? 'source' : 'destination'}: a file path or a postgres:// URL.`);
  const otherStore = openStateStore(other, {
    name: (action === 'push' ? options.sourceName : options.destinationName) ?? 'default',
    cwd: io.cwd,
    env: io.env,
    command: commandLine(),
    given: `state ${action} ${action === 'push' ? 'SOURCE' : 'DESTINATION'}`,
    nameFlag: action === 'push' ? '--source-name' : '--destination-name',
  });
  try {
    // Onto itself, a copy would only replace the backup of the version before with this one.
    if (otherStore.describe() === store.describe()) throw new UsageError(`state ${action}: ${other} is the --state state itself (${store.describe()}); nothing was copied.`);
    const [from, to] = action === 'push' ? [otherStore, store] : [store, otherStore];
    const state = await from.read().catch((error: unknown) => {
      // A copy's source that is no state: a new state there is nothing to copy.
      if (error instanceof NotAStateFileError && from === otherStore) throw new NotAStateFileError(error.file, error.what, 'name a state file, or a postgres:// URL, to copy from');
      throw error;
    });
    if (!state) throw new StateError(`No recorded state at ${from.describe()}; nothing was copied.`);
    const summary = `lineage ${state.lineage}, serial ${state.serial}, ${counted(Object.keys(state.resources).length, 'resource')}`;
    // The copy's own checks (another lineage, a newer serial, the same serial with other
    // content), so that --dry-run says what the copy would do, and a copy that finds the very
    // same state there says it copied nothing.
    const changes = async (): Promise<boolean> => copyChanges(await to.read(), state, to.describe());
    const holds = `${to.describe()} holds this state already (${summary}); nothing was copied.\n`;
    if (options.dryRun) {
      io.stdout((await changes()) ? `Would copy ${from.describe()} (${summary}) to ${to.describe()}; nothing was changed.\n` : holds);
      return 0;
    }
    const copied = await withStateLock(to, { operation: `state ${action}`, timeoutMs }, async () => {
      if (!(await changes())) return false;
      await to.importState(state);
      return true;
    });
    io.stdout(copied ? `Copied ${from.describe()} to ${to.describe()}: ${summary}.\n` : holds);
    return 0;
  } finally {
    await otherStore.close();
  }
}
