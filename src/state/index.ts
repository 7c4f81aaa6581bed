/** Recorded state: format, stores and the serialised writer. */
export {
  STATE_FORMAT_VERSION,
  assertSamePortal,
  forgetResource,
  newState,
  parseState,
  recordOperation,
  sameUrl,
  serializeState,
  validateState,
} from './format.js';
export type { ResourceStatus, StateDocument, StateEntry, StatePortal } from './format.js';
export { DEFAULT_STATE_FILE, FileStateStore, writeFileAtomic } from './file-store.js';
export type { FileStateStoreOptions } from './file-store.js';
export { withStateLock } from './store.js';
export type { LockInfo, LockRequest, StateLock, StateStore } from './store.js';
export { StateWriter } from './writer.js';
export {
  StateConflictError,
  StateCorruptError,
  StateError,
  StateLockedError,
  StatePortalMismatchError,
} from './errors.js';
