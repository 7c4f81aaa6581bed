/**
 * The emulator plays a release: the REST root with `currentVersion` (the API version) and, from
 * 11.3, `enterpriseVersion`/`enterpriseBuild`; the Portal Administration root's `version` for
 * administrators of the self-managed edition only.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/index.js';
import { loadDataFile } from '../../../src/emulator/state/data-file.js';
import { SAMPLE_DATA, send } from './helpers.js';

let emulator: RunningEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function playing(organization: Record<string, string>): Promise<RunningEmulator> {
  const state = loadDataFile(SAMPLE_DATA);
  Object.assign(state.organization, organization);
  emulator = await startEmulator({ data: state });
  return emulator;
}

const adminRoot = (running: RunningEmulator): string => running.url.replace(/\/sharing\/rest$/, '/portaladmin');
const get = async (url: string, token?: string): Promise<Record<string, unknown>> =>
  JSON.parse((await send(`${url}?f=json`, token ? { headers: { 'X-Esri-Authorization': `Bearer ${token}` } } : {})).text) as Record<string, unknown>;

describe('the roots of an emulated release', () => {
  it('11.3: the REST root carries enterpriseVersion beside the API version; portaladmin says 11.3.0 to an administrator', async () => {
    const running = await playing({});
    expect(await get(running.url)).toEqual({ currentVersion: '2024.1', enterpriseVersion: '11.3.0', enterpriseBuild: '51526' });
    expect(await get(adminRoot(running), 'admin-token')).toMatchObject({ version: '11.3.0', currentbuild: '11.3.0.51526', isUserTypeLicensing: true });
  });

  it('before 11.3: the REST root has the API version only; the release is at portaladmin', async () => {
    const running = await playing({ version: '10.6.1', apiVersion: '6.4', build: '20100' });
    expect(await get(running.url)).toEqual({ currentVersion: '6.4' });
    expect(await get(adminRoot(running), 'admin-token')).toMatchObject({ version: '10.6.1', currentbuild: '10.6.1.20100', isUserTypeLicensing: false });
    expect((await get(`${running.url}/portals/self`, 'admin-token'))['currentVersion']).toBe('6.4');
  });

  it('portaladmin refuses members (403), asks for a token (499), and does not exist on the hosted edition', async () => {
    const running = await playing({});
    expect(await get(adminRoot(running), 'viewer-token')).toMatchObject({ error: { code: 403, messageCode: 'GWM_0003' } });
    expect(await get(adminRoot(running))).toMatchObject({ error: { code: 499 } });
    await running.close();
    const hosted = await playing({ edition: 'hosted', version: '2025.1', apiVersion: '2025.1' });
    expect(await get(hosted.url)).toEqual({ currentVersion: '2025.1' });
    expect(await get(adminRoot(hosted), 'admin-token')).toMatchObject({ error: { code: 400, message: 'Invalid URL' } });
  });
});
