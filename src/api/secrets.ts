import { secretScrubber, type ConcealedValue, type Scrubber } from '../core/secret-text.js';

/**
 * What no error of the client may show: every credential and token it has seen, as `[redacted]`,
 * and what its caller names besides (`conceal`: the config's referenced values, as their
 * references), since the portal may quote what it was sent in the error it answers, in any of
 * the forms core/secret-text.ts finds (escaped, encoded, cut short).
 */
export class Secrets {
  private readonly known = new Set<string>();
  private scrubber: Scrubber | undefined;

  constructor(private readonly conceal: readonly ConcealedValue[] = []) {}

  add(secret: string | undefined): void {
    // A password copied with its line break is sent as it is; the portal may quote it without (secret-text.ts finds both).
    if (secret === undefined || secret.trim() === '' || this.known.has(secret)) return;
    this.known.add(secret);
    this.scrubber = undefined;
  }

  scrub(text: string): string {
    // One pass over every secret: a token inside a referenced value (or overlapping one) leaves no part of either shown.
    // A shorter one than MIN_SCRUBBED_LENGTH would cut up every word it is part of; README "Credentials" says so.
    this.scrubber ??= secretScrubber([...[...this.known].map((value) => ({ value, shown: '[redacted]', minLength: MIN_SCRUBBED_LENGTH })), ...this.conceal]);
    return this.scrubber(text);
  }
}

const MIN_SCRUBBED_LENGTH = 4;
