/** Every credential and token the client has seen, so no error text ever carries one. */
export class Secrets {
  private readonly known = new Set<string>();

  add(secret: string | undefined): void {
    if (secret !== undefined && secret !== '') this.known.add(secret);
  }

  scrub(text: string): string {
    let clean = text;
    for (const secret of this.known) {
      if (secret.length >= 4) clean = clean.split(secret).join('[redacted]');
    }
    return clean;
  }
}
