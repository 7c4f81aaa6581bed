/**
 * Ctrl-C and SIGTERM, at any phase of a command (README "Exit codes": an interrupt exits 130).
 *
 * While a command is writing to the portal or the state it registers a graceful stop: the first
 * interrupt lets the operations in flight (or the recording) finish, and starts no new one; while
 * apply checks its result, the first one abandons the check's reads, so that the apply still
 * reports what it applied. At any other time (reading the portal, waiting for a lock) there is nothing to finish:
 * the interrupt says what was left behind, releases the state locks this process holds, and
 * ends the process. A second interrupt always ends it at once (still releasing the locks).
 */
import { errorMessage } from '../core/errors.js';
import type { StateLock, StateStore } from '../state/index.js';

/** How long releasing the locks may take before the process ends anyway (a database that stopped answering). */
const RELEASE_LIMIT_MS = 5_000;

export const INTERRUPTED_EXIT_CODE = 130;

/** What a graceful stop says: at the first interrupt, and at a second one that cuts it short. */
export interface GracefulStopTexts {
  first: string;
  atOnce: string;
}

/** Writes to the portal: the ones in flight finish and are recorded. */
const FINISHING_WRITES: GracefulStopTexts = {
  first: 'Interrupted: finishing the operations in flight and recording them. Press Ctrl-C again to stop at once.',
  atOnce: 'Stopped at once. Operations in flight may or may not have completed; run plan to see.',
};

interface HeldLock {
  store: StateStore;
  lock: StateLock;
  /** Whether a state write of this store is in flight (a lock's release would wait behind it). */
  writing: () => boolean;
}

export class InterruptHandling {
  private interrupts = 0;
  private graceful: { stop: () => void; texts: GracefulStopTexts } | undefined;
  private note = 'nothing was changed';
  private readonly held = new Set<HeldLock>();
  /** Lock attempts not finished yet: an interrupt stops their wait, and releases what they took. */
  private readonly attempts = new Set<{ store: StateStore; lock: Promise<StateLock> }>();
  private readonly stopWaiting = new AbortController();
  private installed = false;

  constructor(
    private readonly stderr: (text: string) => void,
    private readonly exit: (code: number) => never = (code) => process.exit(code),
  ) {}

  /** Starts listening for SIGINT and SIGTERM; `remove` stops. */
  install(): () => void {
    if (this.installed) return () => undefined;
    this.installed = true;
    const handler = (): void => void this.interrupted();
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
    return () => {
      this.installed = false;
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    };
  }

  /** What an interrupt now would leave behind, completing "Interrupted: ..." (default: nothing was changed). */
  setNote(note: string): void {
    this.note = note;
  }

  /** While registered, the first interrupt calls `stop` instead of ending the process, saying `texts` (default: writes in flight). */
  gracefully(stop: () => void, texts: GracefulStopTexts = FINISHING_WRITES): () => void {
    const graceful = { stop, texts };
    this.graceful = graceful;
    return () => {
      if (this.graceful === graceful) this.graceful = undefined;
    };
  }

  /** The store with its locks remembered, so that an interrupt can release them. */
  trackLocks(store: StateStore): StateStore {
    const held = this.held;
    const attempts = this.attempts;
    const signal = this.stopWaiting.signal;
    let inFlight = 0;
    const writing = (): boolean => inFlight > 0;
    const counted = async <T>(work: Promise<T>): Promise<T> => {
      inFlight += 1;
      try {
        return await work;
      } finally {
        inFlight -= 1;
      }
    };
    return {
      describe: () => store.describe(),
      lockEndsWithProcess: store.lockEndsWithProcess,
      unlockCommand: (lockId) => store.unlockCommand(lockId),
      read: () => store.read(),
      write: (state) => counted(store.write(state)),
      importState: (state) => counted(store.importState(state)),
      history: () => store.history(),
      readSerial: (serial) => store.readSerial(serial),
      leftCopyHint: () => store.leftCopyHint(),
      lock: async (request) => {
        const attempt = { store, lock: store.lock({ ...request, signal }) };
        attempts.add(attempt);
        try {
          const lock = await attempt.lock;
          held.add({ store, lock, writing });
          return lock;
        } finally {
          attempts.delete(attempt);
        }
      },
      unlock: async (lock) => {
        for (const entry of held) if (entry.lock === lock) held.delete(entry);
        await store.unlock(lock);
      },
      forceUnlock: (lockId) => store.forceUnlock(lockId),
      currentLock: () => store.currentLock(),
      lockStatus: () => store.lockStatus(),
      close: () => store.close(),
    };
  }

  private gracefulSeen = false;
  private releasing = false;

  private async interrupted(): Promise<void> {
    this.interrupts += 1;
    if (this.interrupts === 1 && this.graceful) {
      this.gracefulSeen = true;
      this.stderr(`\n${this.graceful.texts.first}\n`);
      this.graceful.stop();
      // Nothing is in flight for a run still waiting for its lock (an environment of a fleet): it stops waiting.
      this.stopWaiting.abort();
      return;
    }
    // Another interrupt while the locks are being released: end now.
    if (this.releasing) this.exit(INTERRUPTED_EXIT_CODE);
    this.releasing = true;
    // Only while the writing the first interrupt let finish still goes on can a request be cut off;
    // once it ended, the note says what it left.
    const cuttingShort = this.gracefulSeen && this.graceful !== undefined;
    this.stderr(cuttingShort && this.graceful ? `\n${this.graceful.texts.atOnce}\n` : `\nInterrupted: ${this.note}.\n`);
    await this.releaseLocks(cuttingShort);
    this.exit(INTERRUPTED_EXIT_CODE);
  }

  /**
   * Releases the locks this process holds, waiting at most RELEASE_LIMIT_MS. `atOnce` (a second
   * interrupt cutting work short): a lock that goes with the process (a database session's) while
   * a state write is in flight is left to go with it, since its release would wait behind that
   * write (one the database holds up, the usual reason for the second interrupt).
   */
  private async releaseLocks(atOnce = false): Promise<void> {
    if (atOnce) {
      for (const entry of this.held) {
        if (!entry.store.lockEndsWithProcess || !entry.writing()) continue;
        this.held.delete(entry);
        this.stderr(`The state lock on ${entry.store.describe()} is released by the database as this process's session ends (now).\n`);
      }
    }
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => (timer = setTimeout(resolve, RELEASE_LIMIT_MS)));
    const release = async ({ store, lock }: Pick<HeldLock, 'store' | 'lock'>): Promise<void> => {
      try {
        await store.unlock(lock);
        this.stderr(`Released the state lock on ${store.describe()}.\n`);
      } catch (error) {
        this.stderr(`Could not release the state lock on ${store.describe()} (${errorMessage(error)}); remove it with: ${store.unlockCommand(lock.info.id)}\n`);
      }
    };
    const releases = [...this.held].map(release);
    this.held.clear();
    // A lock taken just now, before this interrupt could know of it, is released too; one still waited for is not waited for any more.
    this.stopWaiting.abort();
    const taken = [...this.attempts].map(async ({ store, lock }) => {
      const got = await lock.catch(() => undefined);
      if (got) await release({ store, lock: got });
    });
    const finished = await Promise.race([Promise.all([...releases, ...taken]).then(() => true), limit.then(() => false)]);
    clearTimeout(timer);
    if (!finished) {
      this.stderr(
        `The state did not answer within ${RELEASE_LIMIT_MS / 1000} s to release its lock: a database releases it when this process's session ends (now); ` +
          'a lock file is taken over by the next run, which says so.\n',
      );
    }
  }
}
