/**
 * The version model: a portal's `currentVersion` is its REST API version; the product release
 * comes from `enterpriseVersion` at the root (11.3+), the Portal Administration root
 * (self-managed, administrators), the hosted edition's dated release, or a sourced table row, and
 * is otherwise unknown. Every answer below is a documented one; each case names its source.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/core/json.js';
import { factsFromSelf } from '../../src/engine/plan/prepare.js';
import { API_VERSION_RELEASES, apiVersionRow, releaseFrom, releaseName, type Read } from '../../src/engine/read/release.js';
import { documented } from '../support/wire-samples.js';

/** wire-samples/portals-self.json: an ArcGIS Online organization (isPortal false, currentVersion "2024.1"). */
const hostedSelf = documented('portals-self.json');
const selfManaged = (currentVersion: string | number): JsonObject => ({ ...hostedSelf, isPortal: true, portalMode: 'singletenant', currentVersion });
const answer = (body: JsonObject): Read => ({ answer: body });
const refused: Read = { refused: 'You do not have permissions to access this resource or perform this operation., 403 GWM_0003' };

/** Root resource page (developers.arcgis.com/rest/users-groups-and-items/root): an Enterprise 11.3. */
const ROOT_11_3 = { currentVersion: '2024.1', enterpriseVersion: '11.3.0', enterpriseBuild: '51526' };
/** The same page's older example: a root with an API version only. */
const ROOT_OLDER = { currentVersion: '2.2' };
/** Portal Administration root (developers.arcgis.com/rest/enterprise-administration/portal/portal-administration-root.htm). */
const PORTALADMIN_11_1 = {
  isPostUpgrade: false,
  isLicensePopulated: true,
  siteKey: 'e4949632-0493-4c0b-bfc9-6fd2331a3be8',
  resources: ['license', 'system', 'security', 'federation', 'logs', 'machines', 'license', 'mode', 'privilege'],
  isPortalLicensed: true,
  isLicenseFileRequired: false,
  isUserTypeLicensing: true,
  version: '11.1.0',
  currentbuild: '11.1.0.42854',
};

describe('the product release of a portal', () => {
  it('self-managed 11.3 and later: enterpriseVersion at the root, not the API version "2024.1" (Root resource page)', () => {
    const release = releaseFrom(selfManaged('2024.1'), answer(ROOT_11_3));
    expect(release).toMatchObject({ edition: 'self-managed', apiVersion: '2024.1', release: '11.3', source: 'enterpriseVersion' });
    expect(release.how).toBe('enterpriseVersion 11.3.0 (build 51526) at the REST root');
    expect(factsFromSelf(selfManaged('2024.1'), release).facts).toMatchObject({ edition: 'self-managed', version: '11.3' });
  });

  it('self-managed 11.0-11.2: no enterpriseVersion, the Portal Administration root says "11.1.0" (its documented example)', () => {
    const release = releaseFrom(selfManaged('2.2'), answer(ROOT_OLDER), answer(PORTALADMIN_11_1));
    expect(release).toMatchObject({ edition: 'self-managed', apiVersion: '2.2', release: '11.1', source: 'portaladmin' });
    expect(release.how).toBe('version 11.1.0 at the Portal Administration root');
  });

  it('self-managed 10.x: the Portal Administration root (documented since 10.2.1) gives the release, whatever small API version the root reports', () => {
    const release = releaseFrom(selfManaged('2.2'), answer(ROOT_OLDER), answer({ ...PORTALADMIN_11_1, version: '10.6.1', currentbuild: '10.6.1.20100' }));
    expect(release).toMatchObject({ release: '10.6.1', source: 'portaladmin' });
    // The API version is never taken for the release: "2.2" would have gated away everything from 10.4 on.
    expect(factsFromSelf(selfManaged('2.2'), release).facts.version).toBe('10.6.1');
  });

  it('self-managed without administrator rights and without a sourced API version: unknown, with every reason', () => {
    const release = releaseFrom(selfManaged('2.2'), answer(ROOT_OLDER), refused);
    expect(release.release).toBeUndefined();
    expect(release.how).toBe(
      'the REST root has no enterpriseVersion (it has from 11.3 on); the Portal Administration root could not be read ' +
        '(You do not have permissions to access this resource or perform this operation., 403 GWM_0003); ' +
        'REST API version 2.2 names no release in a public source portalctl knows',
    );
    expect(factsFromSelf(selfManaged('2.2'), release).facts).not.toHaveProperty('version');
  });

  it('self-managed without enterpriseVersion and without administrator rights: a sourced API version row still names the release', () => {
    const release = releaseFrom(selfManaged('2024.1'), answer({ currentVersion: '2024.1' }), refused);
    expect(release).toMatchObject({ release: '11.3', source: 'api-version-table' });
    expect(release.how).toContain('developers.arcgis.com/rest/users-groups-and-items/root');
  });

  describe('a row per sourced API version, read without administrator rights', () => {
    it('"2.3" is 10.2.1: the vendor\'s PortalPy client (github.com/Esri/portalpy, portalpy.py, Portal.get_version) says "2.3 is returned from Portal 10.2.1"', () => {
      const release = releaseFrom(selfManaged('2.3'), answer({ currentVersion: '2.3' }), refused);
      expect(release).toMatchObject({ edition: 'self-managed', apiVersion: '2.3', release: '10.2.1', source: 'api-version-table' });
      expect(release.how).toContain('github.com/Esri/portalpy');
      expect(factsFromSelf(selfManaged('2.3'), release).facts.version).toBe('10.2.1');
    });

    it('"2024.1" is 11.3: the Root resource page shows it beside enterpriseVersion "11.3.0"', () => {
      expect(releaseFrom(selfManaged('2024.1'), answer({ currentVersion: '2024.1' }), refused)).toMatchObject({ release: '11.3', source: 'api-version-table' });
    });

    it('the releases no public source names stay unknown: 10.5 to 11.2 (API versions real portals show without their release: 8.2, 8.4, 10.3)', () => {
      for (const apiVersion of ['5.1', '6.4', '8.2', '8.4', '10.3', '2023.1']) {
        const release = releaseFrom(selfManaged(apiVersion), answer({ currentVersion: apiVersion }), refused);
        expect(release.release, apiVersion).toBeUndefined();
        expect(release.how).toContain(`REST API version ${apiVersion} names no release in a public source portalctl knows`);
      }
    });
  });

  describe('currentVersion as a JSON number (some portals answer `currentVersion: 10.3` unquoted)', () => {
    it('is read as its decimal text: an unmapped one is named in the reason, not "no REST API version was reported"', () => {
      const release = releaseFrom(selfManaged(10.3), answer({ currentVersion: 10.3 }), refused);
      expect(release).toMatchObject({ apiVersion: '10.3' });
      expect(release.release).toBeUndefined();
      expect(release.how).toContain('REST API version 10.3 (a JSON number) names no release in a public source portalctl knows');
    });

    it('a mapped one names its row, from the root or, without a root, from portals/self', () => {
      expect(releaseFrom(selfManaged(2024.1), answer({ currentVersion: 2024.1 }), refused)).toMatchObject({ apiVersion: '2024.1', release: '11.3', source: 'api-version-table' });
      expect(releaseFrom(selfManaged(2.3), { refused: 'not found' }, refused)).toMatchObject({ apiVersion: '2.3', release: '10.2.1' });
    });

    it('on the hosted edition it is the dated release', () => {
      expect(releaseFrom({ ...hostedSelf, currentVersion: 2024.1 }, answer({ currentVersion: 2024.1 }))).toMatchObject({ release: '2024.1', source: 'hosted' });
    });

    it('a number names a row only when exactly one row has its value: it has lost any trailing zero ("3.10" is 3.1)', () => {
      const table = [
        { apiVersion: '3.1', release: 'A', source: 'made up' },
        { apiVersion: '3.10', release: 'B', source: 'made up' },
      ];
      expect(apiVersionRow('3.10', table)).toMatchObject({ release: 'B' });
      expect(apiVersionRow('3.1', table)).toMatchObject({ release: 'A' });
      expect(apiVersionRow(3.1, table)).toBe('REST API version 3.1 (a JSON number) cannot tell the table\'s rows "3.1" and "3.10" apart');
      expect(apiVersionRow(3.1, [{ apiVersion: '3.10', release: 'B', source: 'made up' }])).toMatchObject({ release: 'B' });
    });
  });

  it('every row of the API version table names its public source', () => {
    expect(API_VERSION_RELEASES.length).toBeGreaterThan(0);
    for (const row of API_VERSION_RELEASES) expect(row.source).toMatch(/developers\.arcgis\.com|github\.com/);
  });

  it('hosted: the dated API version is the dated release (portals-self.json, wire-samples README "Versions")', () => {
    const release = releaseFrom(hostedSelf, answer({ currentVersion: '2024.1' }));
    expect(release).toMatchObject({ edition: 'hosted', apiVersion: '2024.1', release: '2024.1', source: 'hosted' });
    expect(factsFromSelf(hostedSelf, release).facts).toMatchObject({ edition: 'hosted', version: '2024.1' });
    // Hosted is never asked for the Portal Administration root, which it does not have.
    expect(releaseFrom(hostedSelf, answer({ currentVersion: '2025.2' }), refused)).toMatchObject({ release: '2025.2' });
  });

  it('a release is written as declared: trailing zero parts beyond major.minor dropped', () => {
    expect(['11.3.0', '11.0.0', '10.6.1', '11.3', '12.0.0.0'].map(releaseName)).toEqual(['11.3', '11.0', '10.6.1', '11.3', '12.0']);
  });
});
