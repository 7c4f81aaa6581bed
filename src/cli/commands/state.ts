/**
 * `portalctl state show [--serial N] | list | history | unlock [LOCK_ID] | rm ADDR... | mv FROM TO
 * | push SOURCE | pull DESTINATION`, on a file or a PostgreSQL state alike.
 */
import { terminalText } from '../../engine/render/escape.js';
import { UsageError } from '../../core/errors.js';
import {
  StateError,
  describeHolder,
  forgetResource,
  moveResource,
  openStateStore,
  withStateLock,
  type StateDocument,
  type StateStore,
} from '../../state/index.js';
import type { CommandIO } from '../io.js';
import { commandLine, parseDuration, stateStore, type SharedOptions } from './common.js';

export interface StateOptions extends SharedOptions {
  serial?: string;
  dryRun?: boolean;
  sourceName?: string;
  destinationName?: string;
}

export async function stateCommand(action: string, args: readonly string[], options: StateOptions, io: CommandIO): Promise<number> {
  const store = stateStore(options, io);
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
      else io.stdout('The state is not locked.\n');
      return 0;
    }
    case 'history': {
      const entries = await store.history();
      if (entries.length === 0) {
        io.stdout(`No recorded history at ${store.describe()}.\n`);
        return 0;
      }
      io.stdout(`# ${store.describe()}: ${entries.length} serial(s) kept, newest first\n`);
      io.stdout('serial\twritten at\tresources\tchanged\tcommand\n');
      for (const entry of entries) io.stdout(`${entry.serial}\t${entry.writtenAt}\t${entry.resources}\t${entry.changed}\t${terminalText(entry.command)}\n`);
      return 0;
    }
    case 'show': {
      if (options.serial !== undefined) {
        const serial = Number(options.serial);
        if (!Number.isInteger(serial) || serial < 1) throw new UsageError(`--serial takes a whole number of at least 1, not "${options.serial}".`);
        const old = await store.readSerial(serial);
        if (!old) throw new StateError(`Serial ${serial} is not kept at ${store.describe()}; \`portalctl state history\` lists the kept ones.`);
        io.stdout(`${JSON.stringify(old, null, 2)}\n`);
        return 0;
      }
      const state = await store.read();
      if (!state) io.stdout(`No recorded state at ${store.describe()}.\n`);
      else io.stdout(`${JSON.stringify(state, null, 2)}\n`);
      return 0;
    }
    case 'list': {
      const state = await store.read();
      if (!state) {
        io.stdout(`No recorded state at ${store.describe()}.\n`);
        return 0;
      }
      io.stdout(`# ${store.describe()}: lineage ${state.lineage}, serial ${state.serial}, portal ${state.portal.url}\n`);
      for (const [address, entry] of Object.entries(state.resources).sort(([a], [b]) => (a < b ? -1 : 1))) {
        io.stdout(`${terminalText(address)}\t${entry.kind}\t${entry.status ?? 'present'}\t${entry.appliedAt ?? entry.observedAt ?? ''}\n`);
      }
      // Outcomes not known are listed apart: the next plan checks them against the portal first.
      for (const [address, mark] of Object.entries(state.unknownOutcomes ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) {
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
      return { next: moveResource(state, from, to), lines: [`${from} -> ${to}`] };
    }
    const unknown = args.filter((address) => !(address in state.resources));
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

/** `state push SOURCE` (into --state) / `state pull DESTINATION` (from --state): lineage and serial kept. */
async function copyState(action: 'push' | 'pull', other: string, options: StateOptions, io: CommandIO, store: StateStore, timeoutMs: number): Promise<number> {
  if (!other) throw new UsageError(`state ${action} needs a ${action === 'push' ? 'source' : 'destination'}: a file path or a postgres:// URL.`);
  const otherStore = openStateStore(other, {
    name: (action === 'push' ? options.sourceName : options.destinationName) ?? 'default',
    cwd: io.cwd,
    env: io.env,
    command: commandLine(),
  });
  try {
    const [from, to] = action === 'push' ? [otherStore, store] : [store, otherStore];
    const state = await from.read();
    if (!state) throw new StateError(`No recorded state at ${from.describe()}; nothing was copied.`);
    const summary = `lineage ${state.lineage}, serial ${state.serial}, ${Object.keys(state.resources).length} resource(s)`;
    if (options.dryRun) {
      const existing = await to.read();
      if (existing && existing.lineage !== state.lineage) throw new StateError(`The state at ${to.describe()} has lineage ${existing.lineage}, not ${state.lineage}: it is another state. Nothing was copied.`);
      io.stdout(`Would copy ${from.describe()} (${summary}) to ${to.describe()}; nothing was changed.\n`);
      return 0;
    }
    await withStateLock(to, { operation: `state ${action}`, timeoutMs }, () => to.importState(state));
    io.stdout(`Copied ${from.describe()} to ${to.describe()}: ${summary}.\n`);
    return 0;
  } finally {
    await otherStore.close();
  }
}
