/**
 * The bundled portal emulator: `startEmulator({ port, data })` serves the portal REST API at
 * `<url>` = `http://<host>:<port>/portal/sharing/rest` (`https://` with `tls`: a certificate and
 * key, e.g. from `generateTls()`) and the control API at `/_emulator/`.
 * See server.ts for wire choices, control.ts for the control API and model.ts for the data file.
 */
import { applyAutomaticTransitions, routes as portalRoutes } from './route-table.js';
import type { Route } from './shared/types.js';
import { startEmulatorServer, type EmulatorServerOptions, type RunningEmulator } from './server.js';

export interface EmulatorOptions extends Omit<EmulatorServerOptions, 'routes'> {
  /** Defaults to the portal's routes (src/emulator/route-table.ts). */
  routes?: readonly Route[];
}

/**
 * Starts the emulator. With the default routes, a state replaced through the control API also
 * gets the portal's automatic transitions (content.ts `applyAutomaticTransitions`).
 */
export function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  if (options.routes) return startEmulatorServer({ ...options, routes: options.routes });
  return startEmulatorServer({ onStateReplaced: applyAutomaticTransitions, ...options, routes: portalRoutes });
}

export { CONTROL_ROOT, MAX_BODY_BYTES, REST_ROOT, type RunningEmulator } from './server.js';
export { EmulatorDataError, loadDataFile, minimalState, parseEmulatorState } from './state/data-file.js';
export { generateTls, type GeneratedTls, type TlsMaterial } from './http/tls.js';
export { isWildcardHost } from './http/hosts.js';
export type { Fault, FaultSpec, LoggedRequest } from './control.js';
export type { EmulatorState } from './state/model.js';
