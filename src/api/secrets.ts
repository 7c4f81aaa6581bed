/**
 * What no error of the client may show: every credential and token it has seen, as `[redacted]`,
 * and what its caller names besides (`conceal`: the config's referenced values, as their
 * references), since the portal may quote what it was sent in the error it answers.
 */
export class Secrets {
  private readonly known = new Set<string>();

  constructor(private readonly conceal: (text: string) => string = (text) => text) {}

  add(secret: string | undefined): void {
    if (secret === undefined) return;
    // A password copied with its line break is sent as it is; the portal may quote it without.
    for (const text of [secret, secret.trim()]) if (text !== '') this.known.add(text);
  }

  scrub(text: string): string {
    let clean = text;
    // Longest first: a password inside a token would otherwise leave the rest of the token shown.
    // A shorter one than MIN_SCRUBBED_LENGTH would cut up every word it is part of; README "Credentials" says so.
    const secrets = [...this.known].filter((secret) => secret.length >= MIN_SCRUBBED_LENGTH).sort((a, b) => b.length - a.length);
    for (const secret of secrets) if (clean.includes(secret)) clean = clean.split(secret).join('[redacted]');
    return this.conceal(clean);
  }
}

const MIN_SCRUBBED_LENGTH = 4;
