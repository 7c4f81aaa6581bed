import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorCommand } from '../../../src/cli/commands/emulator.js';
import type { CommandIO } from '../../../src/cli/io.js';
import { UsageError } from '../../../src/core/errors.js';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';
import { SAMPLE_DATA, control, errorOf, json, postForm, send } from './helpers.js';

describe('the real routes with the sample organization', () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startEmulator({ data: SAMPLE_DATA });
  });
  afterAll(() => emulator.close());

  it('updates the security policy with a token and refuses without one', async () => {
    const updated = await postForm(`${emulator.url}/portals/self/securityPolicy/update`, { minLength: '12', f: 'json', token: 'admin-token' });
    expect(json(updated)).toEqual({ success: true });
    expect(emulator.state().organization.securityPolicy.minLength).toBe(12);
    const refused = await postForm(`${emulator.url}/portals/self/securityPolicy/update`, { minLength: '14', f: 'json' });
    expect(errorOf(refused).code).toBe(499);
    expect(emulator.state().organization.securityPolicy.minLength).toBe(12);
  });

  it('serves reads and portals/self side by side', async () => {
    const policy = json(await send(`${emulator.url}/portals/self/securityPolicy?f=json&token=admin-token`));
    expect(policy).toHaveProperty('passwordPolicy');
    const self = json(await send(`${emulator.url}/portals/self?f=json&token=admin-token`));
    expect(self).toMatchObject({ id: '0123456789ABCDEF', user: { username: 'admin' } });
  });

  it('leaves the state unchanged when a real route refuses', async () => {
    const before = (await control(emulator, 'GET', '/state')).text;
    const refused = await postForm(`${emulator.url}/portals/self/securityPolicy/update`, { minLength: '3', f: 'json', token: 'steward-token' });
    expect(errorOf(refused).code).toBeGreaterThanOrEqual(400);
    expect((await control(emulator, 'GET', '/state')).text).toBe(before);
  });
});

describe('portalctl emulator', () => {
  function captureIO(): { io: CommandIO; out: () => string } {
    let out = '';
    return {
      io: { stdout: (text) => void (out += text), stderr: (text) => void (out += text), env: {}, cwd: process.cwd(), color: false, isTTY: false },
      out: () => out,
    };
  }

  it('prints a URL that answers, the tokens and the control API, then stops', async () => {
    const { io, out } = captureIO();
    const stop = new AbortController();
    const running = emulatorCommand({ port: '0', host: '127.0.0.1', data: 'examples/emulator/portal.yaml' }, io, stop.signal);
    let url: string | undefined;
    while (url === undefined) {
      url = /REST URL:\s+(\S+)/.exec(out())?.[1];
      if (url === undefined) await new Promise((resolve) => setImmediate(resolve));
    }
    expect(out()).toMatch(/admin-token\s+admin\n/);
    expect(out()).toMatch(/expired-token\s+admin \(expired\)/);
    expect(out()).toContain('/_emulator');
    const updated = await postForm(`${url}/portals/self/securityPolicy/update`, { minLength: '12', f: 'json', token: 'admin-token' });
    expect(json(updated)).toEqual({ success: true });
    stop.abort();
    await expect(running).resolves.toBe(0);
    await expect(send(`${url}/portals/self?f=json&token=admin-token`)).rejects.toThrow();
  });

  it('refuses a bad port and reports a bad data file', async () => {
    const { io } = captureIO();
    await expect(emulatorCommand({ port: 'eighty', host: '127.0.0.1' }, io)).rejects.toThrow(UsageError);
    await expect(emulatorCommand({ port: '70000', host: '127.0.0.1' }, io)).rejects.toThrow(UsageError);
    await expect(emulatorCommand({ port: '0', host: '127.0.0.1', data: 'package.json' }, io)).rejects.toThrow(/invalid emulator data file .*package\.json: name: unknown field/);
  });
});
