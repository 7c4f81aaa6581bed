/** `portalctl state show | list | unlock [LOCK_ID]`. */
import { UsageError } from '../../core/errors.js';
import type { CommandIO } from '../io.js';
import { stateStore, type SharedOptions } from './common.js';

export async function stateCommand(action: string, lockId: string | undefined, options: SharedOptions, io: CommandIO): Promise<number> {
  const store = stateStore(options, io);
  if (action === 'unlock') {
    const removed = await store.forceUnlock(lockId);
    io.stdout(removed ? `Removed the lock ${removed.id} of ${removed.owner} (pid ${removed.pid}, ${removed.operation} since ${removed.created}).\n` : 'The state is not locked.\n');
    return 0;
  }
  const state = await store.read();
  if (!state) {
    io.stdout(`No recorded state at ${store.describe()}.\n`);
    return 0;
  }
  if (action === 'show') {
    io.stdout(`${JSON.stringify(state, null, 2)}\n`);
    return 0;
  }
  if (action === 'list') {
    io.stdout(`# ${store.describe()}: lineage ${state.lineage}, serial ${state.serial}, portal ${state.portal.url}\n`);
    for (const [address, entry] of Object.entries(state.resources).sort(([a], [b]) => (a < b ? -1 : 1))) {
      io.stdout(`${address}\t${entry.kind}\t${entry.status ?? 'present'}\t${entry.appliedAt ?? entry.observedAt ?? ''}\n`);
    }
    return 0;
  }
  throw new UsageError(`Unknown state action "${action}": use show, list or unlock.`);
}
