/**
 * Certificates for the emulator's HTTPS: a private certificate authority made for this run and a
 * server certificate it signs for the names the emulator answers on, as an organization's own
 * authority does for a self-managed portal. Clients trust the authority's certificate (a PEM file)
 * through NODE_EXTRA_CA_CERTS; nothing ever turns verification off.
 *
 * Made with the `selfsigned` package (X.509 through @peculiar/x509 on Node's WebCrypto): Node's
 * own crypto can read certificates but not write them, and the openssl binary is not on every
 * machine that runs portalctl (a fresh Node machine, Windows).
 */
import { isIP } from 'node:net';
import { isWildcardHost } from './hosts.js';

export interface TlsMaterial {
  /** The server certificate (PEM). */
  cert: string;
  /** Its private key (PEM, PKCS#8). */
  key: string;
}

export interface GeneratedTls extends TlsMaterial {
  /** The authority's certificate (PEM): what a client trusts. Its key is discarded once it has signed. */
  authority: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Names always in the certificate, so `localhost`, 127.0.0.1 and ::1 all verify. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];

/**
 * A new authority and a server certificate for `hosts` (plus the loopback names), valid from an
 * hour ago (clocks differ a little) for `days` days. EC P-256 keys: made in milliseconds.
 */
export async function generateTls(options: { hosts?: readonly string[]; days?: number } = {}): Promise<GeneratedTls> {
  const { generate } = await import('selfsigned');
  const notBeforeDate = new Date(Date.now() - 60 * 60 * 1000);
  const notAfterDate = new Date(notBeforeDate.getTime() + (options.days ?? 30) * DAY_MS);
  const common = { keyType: 'ec', algorithm: 'sha256', notBeforeDate, notAfterDate } as const;
  const authority = await generate([{ name: 'commonName', value: 'portalctl emulator test authority' }], {
    ...common,
    extensions: [
      { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const names = [...new Set([...(options.hosts ?? []).map(bareHost).filter((host) => host !== '' && !isWildcardHost(host)), ...LOOPBACK_NAMES])];
  const server = await generate([{ name: 'commonName', value: names[0] ?? 'localhost' }], {
    ...common,
    ca: { key: authority.private, cert: authority.cert },
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: names.map((name) => (isIP(name) ? { type: 7, ip: name } : { type: 2, value: name })) },
    ],
  });
  return { authority: authority.cert, cert: server.cert, key: server.private };
}

/** `[::1]` -> `::1`. */
function bareHost(host: string): string {
  return host.trim().replace(/^\[(.*)\]$/, '$1');
}
