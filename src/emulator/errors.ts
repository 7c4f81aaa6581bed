/**
 * The portal's error envelope: `{"error":{"code","messageCode","message","details"}}`.
 * Route handlers throw PortalApiError; the server renders it and discards the handler's draft
 * state, so a rejected request never changes anything.
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
