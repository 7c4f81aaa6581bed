/** Recorded state: format, stores (file, PostgreSQL) and the serialised writer. */
export {
  STATE_FORMAT_VERSION,
  assertSamePortal,
  clearUnknownOutcome,
  forgetResource,
  markUnknownOutcome,
  mayHoldFingerprint,
  moveResource,
  newState,
  parseState,
  recordOperation,
  sameUrl,
  serializeState,
  stateFromValue,
  validateState,
} from './format.js';
export type { RecordedName, ResourceStatus, StateDocument, StateEntry, StatePortal, UnknownOutcome } from './format.js';
export { DEFAULT_STATE_FILE, FileStateStore, writeFileAtomic } from './file-store.js';
export type { FileStateStoreOptions } from './file-store.js';
export { PostgresStateStore, POSTGRES_SCHEMA_VERSION, advisoryLockKey, migrateSchema } from './postgres-store.js';
export type { PostgresStateStoreOptions } from './postgres-store.js';
export { DEFAULT_STATE_NAME, DEFAULT_STATE_SCHEMA, isPostgresUrl, redactPostgresUrl, redactPostgresUrlsIn, redactPostgresWord } from './postgres-url.js';
export { environmentFile, openStateStore, stateSpec } from './open.js';
export type { OpenStateOptions } from './open.js';
export { DEFAULT_HISTORY_KEEP, countChanged, withStateLock } from './store.js';
export type { HistoryEntry, LockInfo, LockRequest, LockStatus, StateLock, StateStore, StoreNoticeKind } from './store.js';
export { describeHolder } from './lock.js';
export { copyChanges } from './policy.js';
export { StateWriter } from './writer.js';
export {
  StateBackendError,
  StateConflictError,
  NotAStateFileError,
  StateCorruptError,
  StateFromLaterVersionError,
  StateError,
  StateLockedError,
  StatePortalMismatchError,
} from './errors.js';
