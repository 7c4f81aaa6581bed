/**
 * The file state store: `portalctl.state.json` (path given by the caller), mode 0600.
 *
 * - Atomic write: a temp file in the same directory, fsync, rename over the state, fsync of
 *   the directory; the previous version is kept as `<file>.backup` (a second link to the file
 *   the new one replaces, so keeping it writes nothing). A process killed at any moment leaves
 *   either the old or the new state, never a torn one.
 * - History: every serial written is kept as `<file>.history/<serial>.json`: when, by which
 *   command, how many addresses changed, and what the write changed (journal.ts), from which
 *   `readSerial` rebuilds it. Files of earlier releases hold the whole state instead. The last
 *   100 by default.
 * - Lock: `<file>.lock` holding LockInfo as JSON, written whole under a temporary name and
 *   linked into place (which fails when the lock exists), so that it appears whole or not at
 *   all: a kill never leaves an empty lock, and a run that finds the lock always reads its
 *   holder. A lock past its expiry, or whose process is gone on this host, is taken over, and
 *   the run says so (the StateLock and `onNotice`).
 * - Temporary files: named after the host and process that writes them; the lock's holder
 *   removes those of processes gone from this host (a run killed while it wrote).
 */
import { randomBytes } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { copyFile, link, mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import type { BigIntStats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { hostname as osHostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { errorCode, errorMessage } from '../core/errors.js';
import { shellWord } from '../core/words.js';
import { processAlive } from '../core/processes.js';
import { isObject, parseJson } from '../core/json.js';
import { noSuchLock, StateCorruptError, StateError, StateLockedError } from './errors.js';
import { describeHolder, formatWait, stoppedWaiting } from './lock.js';
import { notAStateFile, parseState, stateFromValue, validateState, type StateDocument } from './format.js';
import { readStateLines } from './state-file.js';
import { StateFileText } from './file-text.js';
import { carryWriterChanges, changeFromValue, checkedDiff, hasWriterChanges, rebuildSerial, type StateChange, type StateDiff } from './journal.js';
import { copyChanges, HolderIdentity, refuseOverwrite } from './policy.js';
import { DEFAULT_HISTORY_KEEP, type HistoryEntry, type LockInfo, type LockRequest, type LockStatus, type StateLock, type StateStore, type StoreNoticeKind } from './store.js';

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
  /** The command recorded in the history and the lock (password-free). */
  command?: string;
  /** How many serials the history keeps. */
  keepHistory?: number;
  /** Told when this run waits for another's lock or takes over a stale one. */
  onNotice?: (message: string, kind: StoreNoticeKind) => void;
}

const DEFAULT_LOCK_TTL_MS = 60 * 60 * 1000;
const DEFAULT_POLL_MS = 100;
/** A lock file that cannot be parsed is someone mid-creation; only this old is it abandoned. */
const UNREADABLE_LOCK_GRACE_MS = 30_000;

export class FileStateStore implements StateStore {
  /** The lock file stays when the process ends: released by `unlock`, or taken over by the next run. */
  readonly lockEndsWithProcess = false;
  readonly path: string;
  readonly backupPath: string;
  readonly lockPath: string;
  readonly historyDir: string;
  private readonly command: string | undefined;
  private readonly keepHistory: number;
  private readonly onNotice: ((message: string, kind: StoreNoticeKind) => void) | undefined;
  private readonly identity: HolderIdentity;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  /**
   * This store's last write, and the file it made (a file still the same need not be read back).
   * `shared`: a StateWriter's state, whose entries the writer goes on changing (it stands for the
   * file only for a write that says what it changed).
   */
  private lastWritten: { state: StateDocument; file: FileIdentity; shared: boolean; count: number; text: StateFileText | undefined } | undefined;

  constructor(options: FileStateStoreOptions) {
    this.path = resolve(options.path);
    this.backupPath = `${this.path}.backup`;
    this.lockPath = `${this.path}.lock`;
    this.historyDir = `${this.path}.history`;
    this.command = options.command;
    this.keepHistory = options.keepHistory ?? DEFAULT_HISTORY_KEEP;
    this.onNotice = options.onNotice;
    this.identity = new HolderIdentity(options);
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((done) => setTimeout(done, ms)));
  }

  describe(): string {
    return `file ${this.path}`;
  }

  unlockCommand(lockId: string): string {
    return `portalctl state unlock ${lockId} --state ${shellWord(this.path)}`;
  }

  async read(): Promise<StateDocument | undefined> {
    // A directory (`--state states/`), a device or a pipe: reading one failed with EISDIR, said an
    // empty /dev/null was a corrupt state, or waited forever on a pipe.
    const file = await statIfExists(this.path);
    if (file && !file.isFile()) {
      const what = file.isDirectory() ? `a directory: name a file in it, e.g. ${join(this.path, DEFAULT_STATE_FILE)}` : 'not a regular file: the state is kept in a file of its own';
      throw new StateError(`The state ${this.path} is ${what}. Nothing was changed.`);
    }
    let state: StateDocument | 'other-layout' | undefined;
    try {
      state = await readStateLines(this.path);
    } catch (error) {
      if (error instanceof StateCorruptError) throw await this.hinted(error);
      if (error instanceof StateError) throw error;
      throw new StateError(`Cannot read ${this.path}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    if (state !== 'other-layout') return state;
    // Another layout (an earlier release's, a hand edit): read whole, which also says what is wrong with it.
    const text = await readTextIfExists(this.path);
    return text === undefined ? undefined : this.parse(text);
  }

  /** Parse the state file's text; a corrupt file's message says which earlier version exists. */
  private async parse(text: string): Promise<StateDocument> {
    try {
      return parseState(text, this.path);
    } catch (error) {
      if (!(error instanceof StateCorruptError)) throw error;
      throw await this.hinted(error);
    }
  }

  /**
   * The error with what the store keeps of earlier versions. A file with none, that plainly holds
   * something else (a config or a plan named by --state), is said to be no state: the advice for
   * a damaged one (move it aside) would move that file away.
   */
  private async hinted(error: StateCorruptError): Promise<StateError> {
    if ((await readTextIfExists(this.backupPath)) !== undefined) {
      return error.withHint(`The previous version is kept in ${this.backupPath}; inspect it and copy it over ${this.path} if it is valid.`);
    }
    // History of this release holds each serial's change, undone from this very file: only a
    // whole copy (an earlier release's history) is an earlier version to offer.
    const kept = await this.history().catch(() => []);
    for (const entry of kept) {
      const record = await this.readHistoryRecord(entry.serial).catch(() => undefined);
      if (record && 'state' in record) {
        return error.withHint(
          `An earlier version is kept whole in ${this.historyDir} (serial ${entry.serial}); \`portalctl state show --serial ${entry.serial} --state ${shellWord(this.path)}\` shows it.`,
        );
      }
    }
    // History beside it: a damaged state, not another file named by mistake.
    const text = kept.length > 0 ? undefined : await readTextIfExists(this.path);
    const foreign = text === undefined ? undefined : notAStateFile(this.path, text);
    if (foreign) return foreign;
    const changes = kept.length > 0 ? ` (its history in ${this.historyDir} holds the changes of each serial, which rebuild earlier versions from this file only)` : '';
    return error.withHint(`No earlier version of it is kept${changes}; restore it from a copy, or move it aside to start a new state.`);
  }

  /**
   * The stored state, for a write to start from. The file this store wrote last is known while
   * it is still that file (same inode, size and modification time): reading and parsing it again
   * for every group-committed write of a long apply cost more than the write itself. Parsing
   * otherwise means a corrupt file is reported and left exactly as it is.
   */
  private async stored(incoming: StateDocument): Promise<StateDocument | undefined> {
    const known = this.lastWritten;
    if (known && (!known.shared || hasWriterChanges(incoming)) && sameFile(await statIfExists(this.path), known.file)) return known.state;
    return this.read();
  }

  async write(state: StateDocument): Promise<StateDocument> {
    // The document around the entries now; the entries this write changes once they are known.
    const problem = validateState(state, { entries: [] });
    if (problem) throw new StateError(`Refusing to write an invalid state to ${this.path}: ${problem}.`);

    const previous = await this.stored(state);
    refuseOverwrite(previous, state, this.describe(), 'use another --state path or remove that file deliberately');

    const next = carryWriterChanges(state, { ...state, serial: state.serial + 1 });
    await this.store(next, previous);
    return next;
  }

  async importState(state: StateDocument): Promise<StateDocument> {
    const problem = validateState(state);
    if (problem) throw new StateError(`Refusing to store an invalid state in ${this.path}: ${problem}.`);
    const previous = await this.read();
    if (previous && !copyChanges(previous, state, this.path)) return previous;
    await this.store(state, previous);
    return state;
  }

  /** History entry first, then the backup, then the state: a kill between them leaves the last state whole. */
  private async store(next: StateDocument, previous: StateDocument | undefined): Promise<void> {
    if (previous?.lineage !== next.lineage) await this.setAsideHistoryOfAnotherState(next.lineage);
    await mkdir(this.historyDir, { recursive: true, mode: 0o700 });
    // Counting a large state's entries at every write of an apply cost as much as the rest of the diff.
    const count = previous !== undefined && previous === this.lastWritten?.state ? this.lastWritten.count : undefined;
    const diff = checkedDiff(previous, next, this.path, count);
    const entry: HistoryEntry = {
      serial: next.serial,
      lineage: next.lineage,
      writtenAt: new Date(this.now()).toISOString(),
      command: this.command ?? 'portalctl',
      resources: diff.resources,
      changed: diff.changed,
    };
    await writeFileAtomic(this.historyFile(next.serial), `${JSON.stringify({ ...entry, change: diff.change })}\n`);
    if (previous !== undefined) await this.keepBackup();
    const text = this.textAfter(previous, next, diff);
    const file = await writeFileAtomic(this.path, text.bytes(next));
    this.lastWritten = { state: next, file, shared: hasWriterChanges(next), count: diff.resources, text };
    // The serials that just left the kept window (more than one when a copied state skips serials).
    const oldest = next.serial - this.keepHistory;
    for (let serial = Math.max(1, previous === undefined ? oldest : previous.serial - this.keepHistory + 1); serial <= oldest; serial++) {
      await unlinkIfExists(this.historyFile(serial)).catch(() => undefined);
    }
  }

  /**
   * The file's text for `next`: the last write's, brought up to date with what this write
   * changed, when `previous` is what it wrote; else made afresh. Taken from the store while it is
   * updated, so a write that fails leaves none to be updated again from the wrong state.
   */
  private textAfter(previous: StateDocument | undefined, next: StateDocument, diff: StateDiff): StateFileText {
    const known = this.lastWritten;
    const text = known?.text;
    if (known) known.text = undefined;
    if (text === undefined || previous === undefined || previous !== known?.state) return StateFileText.of(next);
    text.update(Object.keys(diff.put), diff.removed);
    // A count that disagrees would be a bug; the whole text is cheap next to a wrong file.
    return text.size === diff.resources ? text : StateFileText.of(next);
  }

  /**
   * The current file becomes the backup: a second link to it, which the rename of the new state
   * leaves as the only one. Where the file system has no hard links, it is copied.
   */
  private async keepBackup(): Promise<void> {
    const temp = temporaryName(this.backupPath, this.identity.host, this.identity.pid);
    try {
      try {
        await link(this.path, temp);
      } catch (error) {
        if (errorCode(error) === 'ENOENT') return;
        await copyFile(this.path, temp);
      }
      await rename(temp, this.backupPath);
    } catch (error) {
      await unlinkIfExists(temp).catch(() => undefined);
      throw new StateError(`Cannot keep the previous state as ${this.backupPath}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }

  /**
   * The first write of a state finds the history a state of another lineage left (its file
   * removed to start afresh, `.history` left beside it): moved aside whole, named for that
   * lineage, so that this state's serials neither overwrite its entries nor list among them.
   */
  private async setAsideHistoryOfAnotherState(lineage: string): Promise<void> {
    // A history file that cannot be read is of no state this one can rebuild: set aside too.
    const entries = await this.historyEntries().catch(() => [{ lineage: 'unreadable' }]);
    const other = entries.find((entry) => entry.lineage !== lineage)?.lineage;
    if (other === undefined) return;
    let aside = `${this.historyDir}-${other}`;
    if (await statIfExists(aside)) aside = `${aside}-${this.now()}`;
    await rename(this.historyDir, aside).catch((error: unknown) => {
      throw new StateError(`Cannot set aside ${this.historyDir}, the history of another state (lineage ${other}): ${errorMessage(error)}. Nothing was written.`, { cause: error });
    });
    this.onNotice?.(`${this.historyDir} held the history of another state (lineage ${other}, its file gone); it is kept as ${aside}, and this state's history starts afresh.`, 'history');
  }

  private historyFile(serial: number): string {
    return join(this.historyDir, `${String(serial).padStart(10, '0')}.json`);
  }

  /**
   * The kept serials, newest first. A history an earlier release mixed with another state's
   * (before setAsideHistoryOfAnotherState) lists only the serials of the state written last.
   */
  async history(): Promise<HistoryEntry[]> {
    const entries = await this.historyEntries();
    const last = entries.reduce<HistoryEntry | undefined>((found, entry) => (found === undefined || entry.writtenAt > found.writtenAt ? entry : found), undefined);
    const own = entries.filter((entry) => entry.lineage === last?.lineage);
    const newest = own[0]?.serial ?? 0;
    return own.filter((entry) => entry.serial > newest - this.keepHistory);
  }

  /** Every entry of the history directory, newest serial first, whatever its lineage. */
  private async historyEntries(): Promise<HistoryEntry[]> {
    let names: string[];
    try {
      names = await readdir(this.historyDir);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return [];
      throw new StateError(`Cannot read ${this.historyDir}: ${errorMessage(error)}`, { cause: error });
    }
    const serials = names
      .map((name) => /^(\d{10})\.json$/.exec(name)?.[1])
      .filter((serial): serial is string => serial !== undefined)
      .map(Number)
      .sort((a, b) => b - a);
    const entries: HistoryEntry[] = [];
    for (const serial of serials) {
      const record = await this.readHistoryRecord(serial);
      if (record) entries.push(record.entry);
    }
    return entries;
  }

  async leftCopyHint(): Promise<string | undefined> {
    if ((await readTextIfExists(this.backupPath)) === undefined) return undefined;
    return `The previous version is kept in ${this.backupPath}; inspect it and copy it over ${this.path} if it is valid.`;
  }

  async readSerial(serial: number): Promise<StateDocument | undefined> {
    const record = await this.readHistoryRecord(serial);
    if (!record) return undefined;
    if ('state' in record) return record.state;
    const base = await this.rebuildBase();
    if (!base) return undefined;
    const { state: current, corrupt } = base;
    // The backup is a serial behind the corrupt file: a later serial listed in the history was
    // rebuilt from that file only, and is not "not kept".
    if (corrupt && serial > current.serial) {
      throw corrupt.withHint(
        `Serial ${serial} cannot be rebuilt: the history holds what each write changed, undone from the state file. The previous version, serial ${current.serial}, is kept in ${this.backupPath} ` +
          `(inspect it and copy it over ${this.path} if it is valid); earlier serials are rebuilt from it.`,
      );
    }
    const changeAt = async (at: number): Promise<StateChange | undefined> => {
      const kept = await this.readHistoryRecord(at);
      return kept && 'change' in kept ? kept.change : undefined;
    };
    return rebuildSerial(current, serial, changeAt, this.historyDir);
  }

  /** The state to rebuild earlier serials from: the state file, or the backup when the state file is corrupt (with the file's error). */
  private async rebuildBase(): Promise<{ state: StateDocument; corrupt?: StateCorruptError } | undefined> {
    try {
      const state = await this.read();
      return state && { state };
    } catch (error) {
      if (!(error instanceof StateCorruptError)) throw error;
      const backup = await readTextIfExists(this.backupPath);
      if (backup === undefined) throw error;
      try {
        return { state: parseState(backup, this.backupPath), corrupt: error };
      } catch {
        throw error;
      }
    }
  }

  /** A history file: the state whole (earlier releases), or the change that wrote it. */
  private async readHistoryRecord(serial: number): Promise<({ entry: HistoryEntry } & ({ state: StateDocument } | { change: StateChange })) | undefined> {
    const file = this.historyFile(serial);
    const text = await readTextIfExists(file);
    if (text === undefined) return undefined;
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (error) {
      throw new StateCorruptError(file, `not valid JSON (${errorMessage(error)})`, { cause: error, what: 'History file' });
    }
    const field = (name: string): unknown => (typeof data === 'object' && data !== null ? Reflect.get(data, name) : undefined);
    const string = (name: string): string => {
      const value = field(name);
      return typeof value === 'string' ? value : '';
    };
    const count = (name: string): number => {
      const value = field(name);
      return typeof value === 'number' ? value : 0;
    };
    if (field('state') !== undefined) {
      const state = stateFromValue(field('state'), file, 'History file');
      const entry: HistoryEntry = { serial: state.serial, lineage: state.lineage, writtenAt: string('writtenAt'), command: string('command'), resources: Object.keys(state.resources).length, changed: count('changed') };
      return { entry, state };
    }
    const change = changeFromValue(field('change'), file);
    if (field('serial') !== serial || string('lineage') === '') throw new StateCorruptError(file, `it does not record serial ${serial}`, { what: 'History file' });
    const entry: HistoryEntry = { serial, lineage: string('lineage'), writtenAt: string('writtenAt'), command: string('command'), resources: count('resources'), changed: count('changed') };
    return { entry, change };
  }

  async lockStatus(): Promise<LockStatus> {
    const held = await this.readLock();
    if (held.state === 'gone') return { state: 'none' };
    if (held.state === 'held') return { state: 'held', lock: held.lock };
    return { state: 'unreadable', where: this.lockPath };
  }

  async close(): Promise<void> {
    return;
  }

  async lock(request: LockRequest): Promise<StateLock> {
    const timeoutMs = request.timeoutMs ?? 0;
    const pollMs = request.pollMs ?? DEFAULT_POLL_MS;
    const deadline = this.now() + timeoutMs;
    let takenOver: StateLock['takenOver'];
    let toldWaiting = false;
    for (;;) {
      const created = this.now();
      const info = this.identity.lockInfo(request, this.command, created, created + (request.ttlMs ?? DEFAULT_LOCK_TTL_MS));
      if (await this.tryCreateLock(info)) {
        if (takenOver) this.onNotice?.(`Took over the state lock of ${describeHolder(takenOver.lock)}: ${takenOver.reason}.`, 'takeover');
        await this.removeAbandonedTemporaries();
        return takenOver ? { info, takenOver } : { info };
      }

      const held = await this.readLock();
      if (held.state === 'gone') continue;
      const staleReason = held.state === 'held' ? this.staleReason(held.lock) : held.staleReason;
      if (staleReason !== undefined) {
        const removed = await this.removeLockIf(held.state === 'held' ? held.lock.id : undefined, held.raw);
        if (removed && held.state === 'held') takenOver = { lock: held.lock, reason: staleReason };
        // A lock file without a record (an earlier release's, or not portalctl's): no holder to name, but said all the same.
        else if (removed) this.onNotice?.(`Took over the state lock ${this.lockPath}: ${staleReason}.`, 'takeover');
        continue;
      }
      if (this.now() >= deadline) {
        if (held.state === 'held') throw new StateLockedError(this.path, held.lock, `Wait for it to finish, or if that process is gone run \`${this.unlockCommand(held.lock.id)}\`.`);
        throw new StateError(
          `The state ${this.path} is locked, but its lock file ${this.lockPath} holds no readable lock record ` +
            '(another portalctl may be writing it right now). Try again in a moment; if no other portalctl is running, ' +
            'remove it with `portalctl state unlock`.',
        );
      }
      if (!toldWaiting && held.state === 'held') {
        toldWaiting = true;
        this.onNotice?.(`The state ${this.path} is locked by ${describeHolder(held.lock)}; waiting up to ${formatWait(timeoutMs)} (--lock-timeout).`, 'waiting');
      }
      if (request.signal?.aborted) throw stoppedWaiting(this.path);
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
    if (held.state === 'gone') {
      if (lockId !== undefined) throw noSuchLock(this.describe(), lockId);
      return undefined;
    }
    // A running holder's lock is not stuck: without it a second run would apply beside the first,
    // and the one that records second would find the state changed and keep what it applied in a
    // recovery file. Removed only when named by its id.
    if (lockId === undefined && held.state === 'held' && this.staleReason(held.lock) === undefined && this.runsHere(held.lock)) {
      throw new StateError(
        `The state lock is held by a running process, ${describeHolder(held.lock)}: it is not stuck, and removing it would let another run apply beside it. ` +
          `Wait for it to finish, or stop it first; to remove the lock all the same, name it: \`${this.unlockCommand(held.lock.id)}\`. Nothing was removed.`,
      );
    }
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

  /**
   * The lock's record written whole, then linked to the lock's name: false when the lock exists.
   * A missing directory of the state file is created first, as `import --out` creates its file's
   * (the first apply to `states/production.json` failed with the lock's ENOENT).
   */
  private async tryCreateLock(info: LockInfo): Promise<boolean> {
    const temporary = temporaryName(this.lockPath, this.identity.host, this.identity.pid);
    const create = () => open(temporary, fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_WRONLY, 0o600);
    try {
      const handle = await create().catch(async (error: unknown) => {
        if (errorCode(error) !== 'ENOENT') throw error;
        await mkdir(dirname(this.lockPath), { recursive: true });
        return create();
      });
      try {
        await handle.writeFile(`${JSON.stringify(info, null, 2)}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await link(temporary, this.lockPath);
      await syncDirectory(dirname(this.lockPath));
      return true;
    } catch (error) {
      if (errorCode(error) === 'EEXIST') return false;
      throw new StateError(`Cannot create the state lock ${this.lockPath}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    } finally {
      await unlinkIfExists(temporary).catch(() => undefined);
    }
  }

  /** Temporary files of the state, its backup, history and lock that a process gone from this host left behind. */
  private async removeAbandonedTemporaries(): Promise<void> {
    const prefix = `.${basename(this.path)}.`;
    await this.removeAbandonedIn(dirname(this.path), (name) => name.startsWith(prefix));
    await this.removeAbandonedIn(this.historyDir, () => true);
  }

  private async removeAbandonedIn(directory: string, belongs: (name: string) => boolean): Promise<void> {
    let names: string[];
    try {
      names = await readdir(directory);
    } catch {
      return;
    }
    const host = hostInName(this.identity.host);
    for (const name of names) {
      const writer = temporaryWriter(name);
      if (!writer || !belongs(name) || writer.host !== host || writer.pid === this.identity.pid || processAlive(writer.pid)) continue;
      await unlinkIfExists(join(directory, name)).catch(() => undefined);
    }
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
    const age = this.now() - modified;
    const abandoned = age > UNREADABLE_LOCK_GRACE_MS;
    return { state: 'unreadable', raw, staleReason: abandoned ? `it held no readable lock record and was last written ${formatWait(age)} ago` : undefined };
  }

  /** Whether the lock's holder is a process on this host that is still running. */
  private runsHere(lock: LockInfo): boolean {
    return lock.host === this.identity.host && lock.pid !== this.identity.pid && processAlive(lock.pid);
  }

  private staleReason(lock: LockInfo): string | undefined {
    if (lock.expires !== undefined && Date.parse(lock.expires) <= this.now()) return `it expired at ${lock.expires}`;
    if (lock.host === this.identity.host && lock.pid !== this.identity.pid && !processAlive(lock.pid)) {
      return `its process ${lock.pid} on ${lock.host} is no longer running`;
    }
    return undefined;
  }

  /**
   * Remove the lock file only if it is still the one we looked at: move it aside (atomic, so
   * only one taker gets it), check its content, and put it back if it changed meanwhile.
   */
  private async removeLockIf(expectedId: string | undefined, expectedRaw: string): Promise<boolean> {
    const aside = temporaryName(this.lockPath, this.identity.host, this.identity.pid);
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

/** What tells a file apart from any other written in its place: inode, size and modification time. */
export interface FileIdentity {
  dev: bigint;
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
}

function identityOf(stats: BigIntStats): FileIdentity {
  return { dev: stats.dev, ino: stats.ino, size: stats.size, mtimeNs: stats.mtimeNs };
}

function sameFile(stats: BigIntStats | undefined, file: FileIdentity): boolean {
  return stats !== undefined && stats.dev === file.dev && stats.ino === file.ino && stats.size === file.size && stats.mtimeNs === file.mtimeNs;
}

async function statIfExists(path: string): Promise<BigIntStats | undefined> {
  try {
    return await stat(path, { bigint: true });
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw new StateError(`Cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/**
 * A temporary name beside `target` that says who writes it: `.<name>.tmp-<host>-<pid>-<random>`,
 * so that a later run can tell one a process gone from this host left behind.
 */
function temporaryName(target: string, host = osHostname(), pid = process.pid): string {
  return join(dirname(target), `.${basename(target)}.tmp-${hostInName(host)}-${pid}-${randomBytes(6).toString('hex')}`);
}

const hostInName = (host: string): string => host.replace(/[^A-Za-z0-9.-]/g, '_');

/** Who writes a temporary file named by temporaryName. */
function temporaryWriter(name: string): { host: string; pid: number } | undefined {
  const match = /\.tmp-(.+)-(\d+)-[0-9a-f]{12}$/.exec(name);
  const [, host, pid] = match ?? [];
  return host !== undefined && pid !== undefined ? { host, pid: Number(pid) } : undefined;
}

/**
 * Write `text` to `target` through a temp file in the same directory, fsync and rename. Returns
 * the identity of the file written (taken before the rename, so no other writer's file is
 * mistaken for it).
 */
export async function writeFileAtomic(target: string, text: string | readonly Buffer[]): Promise<FileIdentity> {
  const directory = dirname(target);
  const temp = temporaryName(target);
  const handle = await open(temp, fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_WRONLY, 0o600);
  let written: FileIdentity;
  try {
    try {
      if (typeof text === 'string') await handle.writeFile(text);
      else await writeParts(handle, text);
      // Owner-only even when the umask would allow more.
      await handle.chmod(0o600);
      await handle.sync();
      written = identityOf(await handle.stat({ bigint: true }));
    } finally {
      await handle.close();
    }
    await rename(temp, target);
  } catch (error) {
    await unlinkIfExists(temp);
    throw new StateError(`Cannot write ${target}: ${errorMessage(error)}`, { cause: error });
  }
  await syncDirectory(directory);
  return written;
}

/** Writes `parts` one after the other: writev of at most IOV_MAX buffers at a time, and what a short write left. */
async function writeParts(handle: FileHandle, parts: readonly Buffer[]): Promise<void> {
  const IOV_MAX = 1024;
  let queue = parts.filter((part) => part.length > 0);
  while (queue.length > 0) {
    const batch = queue.slice(0, IOV_MAX);
    let { bytesWritten } = await handle.writev(batch);
    if (bytesWritten === 0) throw new Error('the file system took none of the bytes written');
    let done = 0;
    while (done < batch.length && bytesWritten >= (batch[done] as Buffer).length) bytesWritten -= (batch[done++] as Buffer).length;
    const rest = batch.slice(done);
    if (rest.length > 0) rest[0] = (rest[0] as Buffer).subarray(bytesWritten);
    queue = [...rest, ...queue.slice(IOV_MAX)];
  }
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
    throw new StateError(`Cannot read ${path}: ${errorMessage(error)}`, { cause: error });
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
    const data = parseJson(raw);
    if (!isObject(data)) return undefined;
    const { id, owner, host, pid, operation, created, expires, command } = data;
    if (typeof id !== 'string' || typeof owner !== 'string' || typeof host !== 'string' || typeof operation !== 'string') return undefined;
    if (typeof created !== 'string' || typeof expires !== 'string' || typeof pid !== 'number') return undefined;
    return { id, owner, host, pid, operation, created, expires, ...(typeof command === 'string' ? { command } : {}) };
  } catch {
    return undefined;
  }
}
