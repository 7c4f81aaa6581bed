/**
 * HTTPS as real portals speak it: the emulator serves a certificate signed by a test authority (as
 * an organization's own authority signs a self-managed portal's), portalctl plans and applies over
 * it with that authority trusted through NODE_EXTRA_CA_CERTS, and without it stops with a clear
 * error that says how to trust it, having sent nothing (never a silent switch to no verification).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { X509Certificate } from 'node:crypto';
import { hostname, networkInterfaces, tmpdir } from 'node:os';
import { connect as connectTls } from 'node:tls';
import { join } from 'node:path';
import { Agent, fetch } from 'undici';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateTls, type GeneratedTls } from '../../src/emulator/index.js';
import { CLI, THREE_CHANGES, startCliPortal } from '../support/cli.js';

let tls: GeneratedTls;
let authorityFile: string;

beforeAll(async () => {
  tls = await generateTls();
  authorityFile = join(await mkdtemp(join(tmpdir(), 'portalctl-tls-')), 'authority.pem');
  await writeFile(authorityFile, tls.authority);
});

describe('plan and apply over HTTPS', () => {
  it('trusts the portal through NODE_EXTRA_CA_CERTS: plan, apply, and a second plan that is empty', async () => {
    const portal = await startCliPortal({ tls });
    try {
      expect(portal.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/portal\/sharing\/rest$/);
      const dir = await portal.writeConfig(THREE_CHANGES);
      const trusted = { env: { NODE_EXTRA_CA_CERTS: authorityFile } };
      const plan = await portal.run(['plan', dir, '--detailed-exitcode'], trusted);
      expect(plan.stderr).toBe('');
      expect(plan.code).toBe(2);
      const apply = await portal.run(['apply', dir, '--auto-approve'], trusted);
      expect(apply.stderr).toBe('');
      expect(apply.code).toBe(0);
      expect(await portal.requests({ writesOnly: true })).toHaveLength(3);
      const after = await portal.run(['plan', dir, '--detailed-exitcode'], trusted);
      expect(after.code).toBe(0);
    } finally {
      await portal.dispose();
    }
  });

  it('an http:// URL to the HTTPS port: said after its retries, with the scheme to check; nothing recorded', async () => {
    const portal = await startCliPortal({ tls });
    try {
      const dir = await portal.writeConfig(THREE_CHANGES);
      const plain = portal.url.replace(/^https:/, 'http:');
      const run = await portal.run(['plan', dir], { portal: plain });
      expect(run.code).toBe(1);
      const host = new URL(plain).host;
      expect(run.stderr).toContain(`GET /portals/self failed: the connection to ${host} was dropped`);
      expect(run.stderr).toContain(`${host} speaks https:// on that port, and closed the http:// request's connection without answering: check the URL's scheme.`);
      expect(await portal.recorded()).toBeUndefined();
    } finally {
      await portal.dispose();
    }
  });

  it('an untrusted certificate stops plan and apply with how to trust it; nothing reaches the portal, nothing is retried or recorded', async () => {
    const portal = await startCliPortal({ tls });
    try {
      const dir = await portal.writeConfig(THREE_CHANGES);
      for (const args of [['plan', dir], ['apply', dir, '--auto-approve']]) {
        const run = await portal.run(args);
        expect(run.code).toBe(1);
        expect(run.stderr).toContain("GET /portals/self failed: the portal's TLS certificate was not accepted (UNABLE_TO_VERIFY_LEAF_SIGNATURE");
        expect(run.stderr).toContain('nothing was sent');
        expect(run.stderr).toContain('export NODE_EXTRA_CA_CERTS=/path/to/authority.pem');
        expect(run.stderr).toContain('portalctl never turns certificate verification off');
        expect(run.stderr).not.toMatch(/retry/i);
      }
      // The handshake failed before any request: the portal saw none, and no state was written.
      expect(await portal.requests()).toEqual([]);
      expect(await portal.recorded()).toBeUndefined();
    } finally {
      await portal.dispose();
    }
  });
});

interface EmulatorRun {
  child: ChildProcessWithoutNullStreams;
  stdout: string;
  stderr: string;
  exited: Promise<number | null>;
}

function startEmulatorCli(args: string[], cwd: string): EmulatorRun {
  const child = spawn(process.execPath, [CLI, 'emulator', '--port', '0', ...args], { cwd, stdio: 'pipe' });
  const run: EmulatorRun = { child, stdout: '', stderr: '', exited: new Promise((resolve) => child.on('close', (code) => resolve(code))) };
  child.stdout.on('data', (chunk: Buffer) => (run.stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (run.stderr += chunk.toString('utf8')));
  return run;
}

/** Resolves when the banner is printed, or with the exit code when the emulator stopped first. */
function banner(run: EmulatorRun): Promise<'banner' | number | null> {
  return new Promise((resolve) => {
    const check = (): void => {
      if (run.stdout.includes('Press Ctrl+C')) resolve('banner');
    };
    run.child.stdout.on('data', check);
    check();
    void run.exited.then(resolve);
  });
}

async function rootOver(url: string, authority: string): Promise<unknown> {
  const agent = new Agent({ connect: { ca: authority } });
  try {
    return await (await fetch(`${url}?f=json`, { dispatcher: agent })).json();
  } finally {
    await agent.close();
  }
}

/** The certificate the server on `port` presents, verified against `authority`. */
function servedCertificate(port: number, authority: string): Promise<X509Certificate> {
  return new Promise((resolve, reject) => {
    const socket = connectTls({ host: '127.0.0.1', port, ca: authority }, () => {
      const certificate = socket.getPeerX509Certificate();
      socket.end();
      if (certificate) resolve(certificate);
      else reject(new Error('no certificate'));
    });
    socket.on('error', reject);
  });
}

describe('portalctl emulator --tls', () => {
  let cwd: string;
  beforeAll(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'portalctl-emulator-tls-'));
  });

  it('--tls makes a test authority, writes its certificate to --tls-ca-out and says how to trust it', async () => {
    const run = startEmulatorCli(['--tls', '--tls-ca-out', 'ca.pem'], cwd);
    expect(await banner(run)).toBe('banner');
    try {
      const url = /REST URL: +(\S+)/.exec(run.stdout)?.[1] ?? '';
      expect(url).toMatch(/^https:\/\//);
      expect(run.stdout).toContain(`export NODE_EXTRA_CA_CERTS=${join(cwd, 'ca.pem')}`);
      expect(run.stdout).toContain('Plays:        self-managed 11.3 (REST API version 2024.1)');
      expect(await rootOver(url, await readFile(join(cwd, 'ca.pem'), 'utf8'))).toMatchObject({ currentVersion: '2024.1', enterpriseVersion: '11.3.0' });
    } finally {
      run.child.kill('SIGINT');
      expect(await run.exited).toBe(0);
    }
  });

  it('--tls on every address (0.0.0.0): the certificate names this machine and its addresses; the banner gives a URL for this machine and one for others', async () => {
    const run = startEmulatorCli(['--tls', '--tls-ca-out', 'wildcard-ca.pem', '--host', '0.0.0.0'], cwd);
    expect(await banner(run)).toBe('banner');
    try {
      const url = /REST URL: +(\S+)/.exec(run.stdout)?.[1] ?? '';
      expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/portal\/sharing\/rest$/);
      expect(run.stdout).toContain(`From others:  ${url.replace('127.0.0.1', hostname())}\n`);
      const authority = await readFile(join(cwd, 'wildcard-ca.pem'), 'utf8');
      expect(await rootOver(url, authority)).toMatchObject({ currentVersion: '2024.1' });
      // The certificate it serves, checked as a client on another machine checks it.
      const served = await servedCertificate(Number(new URL(url).port), authority);
      expect(served.checkHost(hostname())).toBe(hostname());
      for (const address of Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((entry) => entry.address))) {
        expect(served.checkIP(address), address).toBe(address);
      }
    } finally {
      run.child.kill('SIGINT');
      expect(await run.exited).toBe(0);
    }
  });

  it('--tls-cert and --tls-key serve a given certificate', async () => {
    await writeFile(join(cwd, 'server.pem'), tls.cert);
    await writeFile(join(cwd, 'server.key'), tls.key);
    const run = startEmulatorCli(['--tls-cert', 'server.pem', '--tls-key', 'server.key'], cwd);
    expect(await banner(run)).toBe('banner');
    try {
      const url = /REST URL: +(\S+)/.exec(run.stdout)?.[1] ?? '';
      expect(run.stdout).toContain('TLS:          the certificate of --tls-cert');
      expect(await rootOver(url, tls.authority)).toMatchObject({ currentVersion: '2024.1' });
    } finally {
      run.child.kill('SIGINT');
      expect(await run.exited).toBe(0);
    }
  });

  it.each([
    [['--tls-cert', 'server.pem'], '--tls-cert and --tls-key go together'],
    [['--tls-cert', 'missing.pem', '--tls-key', 'server.key'], '--tls-cert missing.pem:'],
    [['--tls-cert', 'notes.txt', '--tls-key', 'server.key'], '--tls-cert notes.txt is not a PEM file'],
    [['--tls-cert', 'server.pem', '--tls-key', 'other.key'], 'cannot serve HTTPS with --tls-cert server.pem and --tls-key other.key'],
    // A file named by mistake is not written over with the authority (each start replaces only its own certificate).
    [['--tls', '--tls-ca-out', 'notes.txt'], 'notes.txt exists and is not a certificate: --tls-ca-out replaces only the certificate an earlier start wrote'],
    // Flags that were ignored without a word: the CA file a user waits for was never written.
    [['--tls', '--tls-cert', 'server.pem', '--tls-key', 'server.key'], '--tls makes a certificate and --tls-cert serves yours: give one or the other.'],
    [['--tls-ca-out', 'ca.pem'], '--tls-ca-out is where --tls writes the certificate of the authority it makes; add --tls to serve HTTPS.'],
    [['--tls-cert', 'server.pem', '--tls-key', 'server.key', '--tls-ca-out', 'ca.pem'], 'with --tls-cert, clients trust the authority that signed yours.'],
  ])('refuses %j with a clear error and serves nothing', async (args, message) => {
    await writeFile(join(cwd, 'server.pem'), tls.cert);
    await writeFile(join(cwd, 'server.key'), tls.key);
    await writeFile(join(cwd, 'notes.txt'), 'not a certificate\n');
    await writeFile(join(cwd, 'other.key'), (await generateTls()).key);
    const run = startEmulatorCli(args, cwd);
    expect(await banner(run)).toBe(1);
    expect(run.stderr).toContain(message);
    expect(run.stdout).not.toContain('REST URL');
    expect(await readFile(join(cwd, 'notes.txt'), 'utf8')).toBe('not a certificate\n');
  });
});
