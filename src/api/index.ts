/** The portal REST API client: the only way the rest of portalctl talks to a portal. */
export { createApiClient } from './client.js';
export { filenameFromDisposition, parseRetryAfter } from './interpret.js';
export type { ApiClient, ApiClientOptions, RequestEvent, SendResult } from './client.js';
export { credentialsFromEnv, credentialsFromVariables, CREDENTIAL_VARIABLES } from './auth.js';
export type { Credentials, CredentialVariables } from './auth.js';
export { encodeForm, toFormValue } from './encoding.js';
export type { Params, ParamValue } from './encoding.js';
export {
  ApiError,
  ApiNetworkError,
  CredentialsError,
  PortalUrlError,
  ProxyUrlError,
  ReadingStoppedError,
  UntrustedCertificateError,
  isMissingPrivilege,
  isNotFound,
  isServerFailure,
  leavesOutcomeUnknown,
  isTokenError,
  tokenProblem,
} from './errors.js';
export type { ApiErrorFields, NetworkFailure } from './errors.js';
export { createLiveReader } from './reader.js';
export { isLoopbackHost, normalizeBaseUrl } from './url.js';
export { proxyFromEnv, proxyShown } from './transport.js';
export { describeRetryWait, type RetryWait } from './retry.js';
