/**
 * The portal's error envelope: `{"error":{"code","messageCode","message","details"}}`.
 * Route handlers throw PortalApiError; the server renders it and discards the handler's draft
 * state, so a rejected request never changes anything.
 *
 * Only documented messageCodes are used (the documentation's error samples, kept in
 * test/fixtures/wire-samples/errors.json, and the spec's Errors table), and one seen in the
 * vendor's own test mocks:
 *
 * | code | messageCode | condition                                      | source                                  |
 * |------|-------------|------------------------------------------------|-----------------------------------------|
 * | 498  | (none)      | invalid or expired token                       | errors.json                             |
 * | 499  | (none)      | token required (none was sent)                 | errors.json                             |
 * | 403  | GWM_0003    | the caller lacks the privilege                 | errors.json                             |
 * | 400  | CONT_0001   | item does not exist or is inaccessible         | errors.json                             |
 * | 400  | CONT_0006   | group does not exist or is inaccessible        | Esri/solution.js test mocks (group reads) |
 * | 404  | (none)      | resource does not exist or is inaccessible     | errors.json; spec Errors (E5)           |
 * | 400  | ORG_1132    | category schema empty, too many trees, invalid | errors.json; spec Errors (E1, E2)       |
 * | 400  | CONT_0163   | public_authoritative in an org not public+verified | spec Errors (E3)                    |
 * | 400  | ORG_1084    | level 1 for a user who owns items or groups    | spec Errors (E4)                        |
 * | 400  | (none)      | Invalid URL (unknown path, or an operation this release lacks) | server.ts            |
 * | 400  | (none)      | a multipart/form-data body that cannot be read (HTTP 400) | http/multipart.ts         |
 *
 * Every other refusal is code 400 without a messageCode (the envelope makes it optional): the
 * documentation names no code for it, so the emulator invents none; `message` and `details` say
 * what was wrong. Clients decide by code and messageCode only; messages are localised.
 */
export class PortalApiError extends Error {
  constructor(
    /** HTTP-style status carried in the body (400, 403, 404, 498, 499, ...). */
    readonly code: number,
    message: string,
    readonly messageCode?: string,
    readonly details: string[] = [],
    /**
     * The HTTP status of the response. The real portal answers most errors with HTTP 200 and
     * the code in the body; 498/499/403 and others keep 200 as well unless a route says so.
     */
    readonly httpStatus: number = 200,
  ) {
    super(message);
    this.name = 'PortalApiError';
  }

  toBody(): { error: { code: number; messageCode?: string; message: string; details: string[] } } {
    return {
      error: {
        code: this.code,
        ...(this.messageCode ? { messageCode: this.messageCode } : {}),
        message: this.message,
        details: this.details,
      },
    };
  }
}

export const notFound = (): PortalApiError =>
  new PortalApiError(404, 'Resource does not exist or is inaccessible.');

export const missingPrivilege = (): PortalApiError =>
  new PortalApiError(403, 'You do not have permissions to access this resource or perform this operation.', 'GWM_0003');
