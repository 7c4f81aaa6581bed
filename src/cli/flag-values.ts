/** Flag values that are numbers or durations, read the same way by every command and the fleet runner. */
import { UsageError } from '../core/errors.js';

const MILLISECONDS_PER_UNIT: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * The longest wait a Node timer takes (2^31 - 1 ms, about 24.8 days): a longer one fires at once,
 * with a TimeoutOverflowWarning (`--request-timeout 1000h` timed every request out at once).
 */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** `30s`, `5m`, `1h`, `500ms`, or a plain number of seconds, up to 596h; no flag means 0. */
export function parseDuration(text: string | undefined, flag: string): number {
  if (text === undefined) return 0;
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  const unit = match ? MILLISECONDS_PER_UNIT[match[2] ?? 's'] : undefined;
  if (!match || unit === undefined) throw new UsageError(`${flag} takes a duration such as 30s, 5m or 1h, not "${text}".`);
  const ms = Math.round(Number(match[1]) * unit);
  if (ms > LONGEST_TIMER_MS) throw new UsageError(`${flag} takes a duration of at most ${Math.floor(LONGEST_TIMER_MS / 3_600_000)}h (about 24 days), not "${text}".`);
  return ms;
}

/** Decimal digits only: `Number` also reads `0x10`, `1e3` and ` 2 `, which say something else or nothing. */
export function parsePositiveInt(text: string, flag: string): number {
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1) throw new UsageError(`${flag} takes a whole number of at least 1, not "${text}".`);
  return value;
}

/** `--request-timeout`: how long each attempt of a request waits for its whole answer (default 30 s). */
export function requestTimeoutMs(text: string | undefined): number {
  const ms = parseDuration(text ?? '30s', '--request-timeout');
  if (ms <= 0) throw new UsageError(`--request-timeout takes a duration longer than 0, such as 30s or 2m, not "${text ?? ''}".`);
  return ms;
}
