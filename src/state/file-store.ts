/**
 * The file state store: `portalctl.state.json` (path given by the caller), mode 0600.
 *
 * - Atomic write: a temp file in the same directory, fsync, rename over the state, fsync of
 *   the directory; the previous version is kept as `<file>.backup` (written the same way). A
 *   process killed at any moment leaves either the old or the new state, never a torn one.
 * - Lock: `<file>.lock` created with O_EXCL holding LockInfo as JSON. A lock past its expiry,
 *   or whose process is gone on this host, may be taken over (the StateLock says so).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { link, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { hostname as osHostname, userInfo } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { StateConflictError, StateError, StateLockedError } from './errors.js';
import { parseState, serializeState, validateState, type StateDocument } from './format.js';
import type { LockInfo, LockRequest, StateLock, StateStore } from './store.js';

export const DEFAULT_STATE_FILE = 'portalctl.state.json';

export interface FileStateStoreOptions {
  /** Path of the state file. */
  path: string;
  /** Identity of this process in locks; overridable for tests. */
  host?: string;
  pid?: number;
  user?: string;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

const DEFAULT_LOCK_TTL_MS = 60 * 60 * 1000;
const DEFAULT_POLL_MS = 100;
/** A lock file that cannot be parsed is someone mid-creation; only this old is it abandoned. */
const UNREADABLE_LOCK_GRACE_MS = 30_000;

export class FileStateStore implements StateStore {
  readonly path: string;
  readonly backupPath: string;
  readonly lockPath: string;
  private readonly host: string;
  private readonly pid: number;
  private readonly user: string;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  /** The text of this store's last write, and what the checks need of it. */
  private lastWritten: { text: string; state: Pick<StateDocument, 'lineage' | 'serial'> } | undefined;

  constructor(options: FileStateStoreOptions) {
    this.path = resolve(options.path);
    this.backupPath = `${this.path}.backup`;
    this.lockPath = `${this.path}.lock`;
    this.host = options.host ?? osHostname();
    this.pid = options.pid ?? process.pid;
    this.user = options.user ?? currentUser();
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((done) => setTimeout(done, ms)));
  }

  describe(): string {
    return `file ${this.path}`;
  }

  async read(): Promise<StateDocument | undefined> {
    const text = await readTextIfExists(this.path);
    return text === undefined ? undefined : parseState(text, this.path);
  }

  async write(state: StateDocument): Promise<StateDocument> {
    const problem = validateState(state);
    if (problem) throw new StateError(`Refusing to write an invalid state to ${this.path}: ${problem}.`);

    const previousText = await readTextIfExists(this.path);
    if (previousText !== undefined) {
      // Parsing first means a corrupt file is reported and left exactly as it is. The file this
      // store wrote last is known (and still there unchanged): parsing it again for every
      // group-committed write of a long apply cost more than the write itself.
      const previous = previousText === this.lastWritten?.text ? this.lastWritten.state : parseState(previousText, this.path);
      if (previous.lineage !== state.lineage) {
        throw new StateConflictError(
          `The state file ${this.path} has lineage ${previous.lineage}, not ${state.lineage}: it is another state. ` +
            'Refusing to overwrite it; use another --state path or remove that file deliberately.',
        );
      }
      if (previous.serial !== state.serial) {
        throw new StateConflictError(
          `The state file ${this.path} is at serial ${previous.serial}, but this run started from serial ${state.serial}: ` +
            'another run wrote it meanwhile. Run the command again.',
        );
      }
    }

    const next: StateDocument = { ...state, serial: state.serial + 1 };
    if (previousText !== undefined) await writeFileAtomic(this.backupPath, previousText);
    const text = serializeState(next);
    await writeFileAtomic(this.path, text);
    this.lastWritten = { text, state: { lineage: next.lineage, serial: next.serial } };
    return next;
  }

  async lock(request: LockRequest): Promise<StateLock> {
    const timeoutMs = request.timeoutMs ?? 0;
    const pollMs = request.pollMs ?? DEFAULT_POLL_MS;
    const deadline = this.now() + timeoutMs;
    let takenOver: StateLock['takenOver'];
    for (;;) {
      const created = this.now();
      const info: LockInfo = {
        id: randomUUID(),
        owner: `${this.user}@${this.host}`,
        host: this.host,
        pid: this.pid,
        operation: request.operation,
        created: new Date(created).toISOString(),
        expires: new Date(created + (request.ttlMs ?? DEFAULT_LOCK_TTL_MS)).toISOString(),
      };
      if (await this.tryCreateLock(info)) return takenOver ? { info, takenOver } : { info };

      const held = await this.readLock();
      if (held.state === 'gone') continue;
      const staleReason = held.state === 'held' ? this.staleReason(held.lock) : held.staleReason;
      if (staleReason !== undefined) {
        const removed = await this.removeLockIf(held.state === 'held' ? held.lock.id : undefined, held.raw);
        if (removed && held.state === 'held') takenOver = { lock: held.lock, reason: staleReason };
        continue;
      }
      if (this.now() >= deadline) {
        if (held.state === 'held') throw new StateLockedError(this.path, held.lock);
        throw new StateError(
          `The state ${this.path} is locked (${this.lockPath} is being written by another process). ` +
            'Try again, or run `portalctl state unlock` if no other portalctl is running.',
        );
      }
      await this.sleep(Math.min(pollMs, Math.max(1, deadline - this.now())));
    }
  }

  async unlock(lock: StateLock): Promise<void> {
    const held = await this.readLock();
    if (held.state === 'gone') return;
    if (held.state === 'held' && held.lock.id !== lock.info.id) {
      throw new StateError(
        `Not releasing the state lock ${held.lock.id} of ${held.lock.owner} (pid ${held.lock.pid}): ` +
          `this run's lock ${lock.info.id} was taken over while it ran.`,
      );
    }
    if (held.state === 'held') await this.removeLockIf(lock.info.id, held.raw);
  }

  async forceUnlock(lockId?: string): Promise<LockInfo | undefined> {
    const held = await this.readLock();
    if (held.state === 'gone') return undefined;
    if (lockId !== undefined && (held.state !== 'held' || held.lock.id !== lockId)) {
      throw new StateError(
        held.state === 'held'
          ? `The state lock's id is ${held.lock.id} (held by ${held.lock.owner}, pid ${held.lock.pid}), not ${lockId}; nothing was removed.`
          : `The state lock ${this.lockPath} cannot be read, so it cannot be matched to id ${lockId}; run unlock without an id to remove it.`,
      );
    }
    await unlinkIfExists(this.lockPath);
    return held.state === 'held' ? held.lock : undefined;
  }

  async currentLock(): Promise<LockInfo | undefined> {
    const held = await this.readLock();
    return held.state === 'held' ? held.lock : undefined;
  }

  private async tryCreateLock(info: LockInfo): Promise<boolean> {
    let handle;
    try {
      handle = await open(this.lockPath, fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_WRONLY, 0o600);
    } catch (error) {
      if (errorCode(error) === 'EEXIST') return false;
      throw new StateError(`Cannot create the state lock ${this.lockPath}: ${(error as Error).message}`, { cause: error });
    }
    try {
      await handle.writeFile(`${JSON.stringify(info, null, 2)}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    return true;
  }

  private async readLock(): Promise<
    | { state: 'gone' }
    | { state: 'held'; lock: LockInfo; raw: string }
    | { state: 'unreadable'; raw: string; staleReason: string | undefined }
  > {
    const raw = await readTextIfExists(this.lockPath);
    if (raw === undefined) return { state: 'gone' };
    const lock = parseLockInfo(raw);
    if (lock) return { state: 'held', lock, raw };
    const modified = await stat(this.lockPath).then(
      (stats) => stats.mtimeMs,
      () => undefined,
    );
    if (modified === undefined) return { state: 'gone' };
    const abandoned = this.now() - modified > UNREADABLE_LOCK_GRACE_MS;
    return { state: 'unreadable', raw, staleReason: abandoned ? 'the lock file is unreadable and old' : undefined };
  }

  private staleReason(lock: LockInfo): string | undefined {
    if (Date.parse(lock.expires) <= this.now()) return `it expired at ${lock.expires}`;
    if (lock.host === this.host && lock.pid !== this.pid && !processAlive(lock.pid)) {
      return `its process ${lock.pid} on ${lock.host} is no longer running`;
    }
    return undefined;
  }

  /**
   * Remove the lock file only if it is still the one we looked at: move it aside (atomic, so
   * only one taker gets it), check its content, and put it back if it changed meanwhile.
   */
  private async removeLockIf(expectedId: string | undefined, expectedRaw: string): Promise<boolean> {
    const aside = join(dirname(this.lockPath), `.${basename(this.lockPath)}.${randomBytes(6).toString('hex')}`);
    try {
      await rename(this.lockPath, aside);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return false;
      throw error;
    }
    const raw = (await readTextIfExists(aside)) ?? '';
    const same = expectedId !== undefined ? parseLockInfo(raw)?.id === expectedId : raw === expectedRaw;
    if (!same) {
      // Someone took the lock between our read and the move: give it back.
      await link(aside, this.lockPath).catch(() => undefined);
    }
    await unlinkIfExists(aside);
    return same;
  }
}

/** Write `text` to `target` through a temp file in the same directory, fsync and rename. */
export async function writeFileAtomic(target: string, text: string): Promise<void> {
  const directory = dirname(target);
  const temp = join(directory, `.${basename(target)}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
  const handle = await open(temp, fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_WRONLY, 0o600);
  try {
    try {
      await handle.writeFile(text);
      // Owner-only even when the umask would allow more.
      await handle.chmod(0o600);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
  } catch (error) {
    await unlinkIfExists(temp);
    throw new StateError(`Cannot write ${target}: ${(error as Error).message}`, { cause: error });
  }
  await syncDirectory(directory);
}

async function syncDirectory(directory: string): Promise<void> {
  // Makes the rename durable; not every platform can open a directory, which is fine.
  try {
    const handle = await open(directory, fsConstants.O_RDONLY);
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    return;
  }
}

async function readTextIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw new StateError(`Cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
}

async function unlinkIfExists(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
  }
}

function parseLockInfo(raw: string): LockInfo | undefined {
  try {
    const data: unknown = JSON.parse(raw);
    if (typeof data !== 'object' || data === null) return undefined;
    const lock = data as Record<string, unknown>;
    const strings = ['id', 'owner', 'host', 'operation', 'created', 'expires'];
    if (!strings.every((field) => typeof lock[field] === 'string')) return undefined;
    if (typeof lock['pid'] !== 'number') return undefined;
    return data as LockInfo;
  } catch {
    return undefined;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return errorCode(error) === 'EPERM';
  }
}

function currentUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env['USER'] ?? process.env['USERNAME'] ?? 'unknown';
  }
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
