/**
 * Retry policy: which failures are transient, how long to wait (exponential backoff with
 * jitter, or the portal's Retry-After, capped), and that only idempotent requests are repeated.
 */
import type { ApiError, NetworkFailure } from './errors.js';

/**
 * Server trouble worth another try: overload (429), a failure inside the portal (500, which the
 * portal often reports as an envelope with code 500 over HTTP 200: the same failure) and gateway
 * trouble (502, 503, 504). Only idempotent requests are repeated (client.ts).
 */
const RETRYABLE_CODES = new Set([429, 500, 502, 503, 504]);

export interface RetryOptions {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  maxRetryAfterMs: number;
  random: () => number;
}

export class RetryPolicy {
  constructor(private readonly options: RetryOptions) {}

  get maxRetries(): number {
    return this.options.maxRetries;
  }

  /** Whether a request that got no answer may be sent again after `retries` retries. */
  mayRetryNetworkFailure(failure: NetworkFailure, idempotent: boolean, nameUnresolved: boolean, retries: number): boolean {
    // A request that never left (refused connection) is safe to repeat even when not idempotent.
    const mayRepeat = idempotent || failure === 'unreachable';
    const transient = failure !== 'unreachable' || !nameUnresolved;
    return mayRepeat && transient && retries < this.options.maxRetries;
  }

  /** The delay before retry number `retry` (1-based), honouring Retry-After when given. */
  delay(retry: number, retryAfterMs?: number): number {
    if (retryAfterMs !== undefined) return Math.min(retryAfterMs, this.options.maxRetryAfterMs);
    const ceiling = Math.min(this.options.maxDelayMs, this.options.baseDelayMs * 2 ** (retry - 1));
    return Math.round(ceiling / 2 + (this.options.random() * ceiling) / 2);
  }
}

/** Overload, a server failure or gateway trouble, by HTTP status or envelope code; never a missing privilege. */
export function isTransient(error: ApiError): boolean {
  return error.messageCode !== 'GWM_0003' && (RETRYABLE_CODES.has(error.httpStatus ?? 0) || RETRYABLE_CODES.has(error.code ?? 0));
}

/** A wait before a retry, told to whoever shows progress (the CLI, on a terminal or with --verbose). */
export interface RetryWait {
  method: string;
  path: string;
  /** How long the wait lasts, in milliseconds. */
  ms: number;
  /** True when the portal asked for it (Retry-After), false for the client's own backoff. */
  retryAfter: boolean;
  /** The retry it leads to (1-based). */
  retry: number;
}

/** "Waiting 30s before retrying POST /x, as the portal asked (Retry-After)". */
export function describeRetryWait(wait: RetryWait): string {
  const seconds = wait.ms >= 1000 ? `${Math.round(wait.ms / 100) / 10}s` : `${wait.ms}ms`;
  return `Waiting ${seconds} before retrying ${wait.method} ${wait.path}${wait.retryAfter ? ', as the portal asked (Retry-After)' : ` (retry ${wait.retry})`}.`;
}
