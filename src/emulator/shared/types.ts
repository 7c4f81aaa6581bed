/**
 * The contract between the emulator's server (parsing, auth, formats, state commit) and its
 * routes by area (src/emulator/routes/<area>.ts).
 */
import type { UploadedFile } from '../http/multipart.js';
import type { EmulatorState, OAuthClient, Role, User } from '../state/model.js';

export type { UploadedFile } from '../http/multipart.js';

/** The authenticated user (or app) behind the request's token. */
export interface Caller {
  /**
   * From the committed state: read it, never change it (change the user in `state`). For an app
   * token, a stand-in named after the app (so that no ownership rule grants the app anything).
   */
  user: Readonly<User>;
  /** Set for app tokens: the app, whose own privileges are the only ones that apply. */
  app?: Readonly<OAuthClient>;
  /** The custom role, when the user has one. */
  customRole?: Readonly<Role>;
  /** True for the built-in org_admin role (the "default administrators"). */
  isDefaultAdmin: boolean;
  /** Effective privileges (all admin privileges for org_admin; the custom role's otherwise). */
  hasPrivilege(privilege: string): boolean;
}

export interface RouteRequest {
  /**
   * Decoded form or query parameters (f and token removed); from a multipart body, a file part
   * as its content read as UTF-8 text, so a text parameter may come as a file.
   */
  params: Readonly<Record<string, string>>;
  /** The file parts of a multipart body, by field name (none for a urlencoded form). */
  files: Readonly<Record<string, UploadedFile>>;
  /**
   * The raw request body when it was not a form (E2 may send the categorySchema JSON object
   * as the whole body without a parameter name).
   */
  rawBody?: string;
  /** Values of `:name` segments of the route pattern. */
  pathParams: Readonly<Record<string, string>>;
  caller: Caller;
  /**
   * A draft of the state. Write handlers mutate it freely; the server commits it only when
   * the handler returns, and throws it away when the handler throws.
   */
  state: EmulatorState;
  /** Epoch milliseconds of the request (the control API may freeze the clock). */
  now: number;
}

export type RouteResult =
  | { type: 'json'; body: Record<string, unknown> }
  | { type: 'file'; filename: string; contentType: string; body: string | Uint8Array };

export interface Route {
  /** Reads answer GET and POST; writes answer POST only (any other method gets an error). */
  access: 'read' | 'write';
  /** Path relative to the REST root, with `:name` segments, e.g. `/portals/:portalId/roles/:roleId/update`. */
  pattern: string;
  handle(request: RouteRequest): RouteResult;
}
