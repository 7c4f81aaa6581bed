/**
 * What no error of the client may show: every credential and token it has seen, as `[redacted]`,
 * and what its caller names besides (`conceal`: the config's referenced values, as their
 * references), since the portal may quote what it was sent in the error it answers.
 */
export class Secrets {
  private readonly known = new Set<string>();

  constructor(private readonly conceal: (text: string) => string = (text) => text) {}

  add(secret: string | undefined): void {
    if (secret !== undefined && secret !== '') this.known.add(secret);
  }

  scrub(text: string): string {
    let clean = text;
    for (const secret of this.known) {
      // A shorter one would cut up every word it is part of; README "Credentials" says so.
      if (secret.length >= MIN_SCRUBBED_LENGTH) clean = clean.split(secret).join('[redacted]');
    }
    return this.conceal(clean);
  }
}

const MIN_SCRUBBED_LENGTH = 4;
