/**
 * Which product release a portal runs: what `portal.version` in the config means and what every
 * version rule of the spec is gated on.
 *
 * A portal's `currentVersion` (in `portals/self` and at the REST root) is the version of its REST
 * API, not the product release: the documentation's Root resource page
 * (developers.arcgis.com/rest/users-groups-and-items/root) shows an ArcGIS Enterprise 11.3
 * answering `currentVersion` "2024.1" beside `enterpriseVersion` "11.3.0". The release is learnt,
 * in this order, from:
 *
 * 1. `enterpriseVersion` at the REST root `sharing/rest?f=json` (anonymous; 11.3 and later);
 * 2. on the hosted edition, the dated API version itself: the hosted edition has only the current
 *    release, named by date ("2024.1"), and the spec's hosted dates (April and December 2018) all
 *    lie before it;
 * 3. on the self-managed edition, the Portal Administration root `<portal>/portaladmin?f=json`
 *    (administrators; since 10.2.1), whose `version` is the release (documented example
 *    "11.1.0": developers.arcgis.com/rest/enterprise-administration/portal/portal-administration-root.htm);
 * 4. the API version looked up in API_VERSION_RELEASES, rows taken from public sources only.
 *
 * `<portal>/portaladmin/info` (`currentversion`, `fullVersion`, `currentbuild`) is not read: it
 * exists from 11.1 only and answers the same administrators as the Portal Administration root,
 * whose `version` has said the release since 10.2.1
 * (developers.arcgis.com/rest/enterprise-administration/portal/portal-info).
 *
 * Otherwise the release is unknown: the plan says so, and no rule is refused on a guess.
 */
import { ApiError, ApiNetworkError, PortalUrlError, type ApiClient } from '../../api/index.js';
import type { JsonObject } from '../../core/json.js';
import type { LiveReader } from '../../core/request.js';
import { compareVersions, isDottedVersion } from '../../core/version.js';
import type { Edition } from '../../kinds/toolkit/contract.js';

/** One API version whose release a public source states, with that source. */
export interface ApiVersionRelease {
  apiVersion: string;
  release: string;
  source: string;
}

/**
 * Self-managed REST API versions and the releases that report them, each with its public source.
 * Only what a source states is here: a release missing from the table is unknown, never guessed.
 * A row needs one public page or file that shows a portal's `currentVersion` beside its release,
 * or states the correspondence. Searched and not found for 10.5 to 11.2 (see the README): real
 * portals' pages show `currentVersion` (8.2, 8.4, 10.3) but not their release, and the vendor's
 * clients only gate on thresholds ("Enterprise 10.9+" as `version >= [8, 4]`), which name no row.
 */
export const API_VERSION_RELEASES: readonly ApiVersionRelease[] = [
  {
    apiVersion: '2.3',
    release: '10.2.1',
    source: 'the vendor\'s PortalPy client (github.com/Esri/portalpy, portalpy.py, Portal.get_version): "2.3 is returned from Portal 10.2.1"',
  },
  {
    apiVersion: '2024.1',
    release: '11.3',
    source: 'Root resource page (developers.arcgis.com/rest/users-groups-and-items/root): an ArcGIS Enterprise 11.3 answers currentVersion "2024.1" with enterpriseVersion "11.3.0"',
  },
];

export type ReleaseSource = 'enterpriseVersion' | 'hosted' | 'portaladmin' | 'api-version-table';

/** What is known of a portal's release, and how it was learnt (or why it was not). */
export interface PortalRelease {
  edition: Edition;
  /** `currentVersion`: the REST API version, kept for messages. */
  apiVersion?: string;
  /** The product release ("11.3", "10.6.1"; hosted: "2024.1"); undefined when it cannot be known. */
  release?: string;
  source?: ReleaseSource;
  /** For people: where the release came from, or why it is unknown. */
  how: string;
}

/** A read that did not give an answer the release can come from, and why (for the plan's warning). */
export type Read = { answer: JsonObject } | { refused: string };

/** "11.3.0" -> "11.3", "10.6.1" stays: the form releases are declared in (compared by parts, so both mean the same). */
export function releaseName(version: string): string {
  const parts = version.trim().split('.');
  while (parts.length > 2 && parts[parts.length - 1] === '0') parts.pop();
  return parts.join('.');
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

/**
 * `currentVersion` as the portal gave it. The documentation shows it quoted ("2024.1"), but some
 * portals answer it as a bare JSON number (`currentVersion: 10.3`): the same version, read as its
 * decimal text for messages and the hosted edition's dated release.
 */
function apiVersionOf(value: unknown): string | number | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  return text(value);
}

/**
 * The row of `table` an API version names, or why none does. A JSON number is matched by value and
 * must name exactly one row, since its text has lost any trailing zero.
 */
export function apiVersionRow(apiVersion: string | number, table: readonly ApiVersionRelease[] = API_VERSION_RELEASES): ApiVersionRelease | string {
  const rows =
    typeof apiVersion === 'number'
      ? table.filter((row) => Number(row.apiVersion) === apiVersion)
      : table.filter((row) => compareVersions(row.apiVersion, apiVersion) === 0);
  const [row, other] = rows;
  if (row !== undefined && other === undefined) return row;
  const given = typeof apiVersion === 'number' ? `REST API version ${String(apiVersion)} (a JSON number)` : `REST API version ${apiVersion}`;
  return row === undefined
    ? `${given} names no release in a public source portalctl knows`
    : `${given} cannot tell the table's rows ${rows.map((known) => `"${known.apiVersion}"`).join(' and ')} apart`;
}

/**
 * The release from what was read (pure): `portals/self`, the REST root, and (self-managed only,
 * when the root did not say) the Portal Administration root.
 */
export function releaseFrom(self: JsonObject, root: Read, administration?: Read): PortalRelease {
  const edition: Edition = self['isPortal'] === true ? 'self-managed' : 'hosted';
  const rootAnswer = 'answer' in root ? root.answer : undefined;
  const reported = apiVersionOf(rootAnswer?.['currentVersion']) ?? apiVersionOf(self['currentVersion']);
  const apiVersion = reported === undefined ? undefined : String(reported);
  const base = { edition, ...(apiVersion !== undefined ? { apiVersion } : {}) };
  const enterpriseVersion = text(rootAnswer?.['enterpriseVersion']);
  if (enterpriseVersion !== undefined && isDottedVersion(enterpriseVersion)) {
    const build = text(rootAnswer?.['enterpriseBuild']);
    return { ...base, release: releaseName(enterpriseVersion), source: 'enterpriseVersion', how: `enterpriseVersion ${enterpriseVersion}${build ? ` (build ${build})` : ''} at the REST root` };
  }
  if (edition === 'hosted') {
    if (apiVersion !== undefined && isDottedVersion(apiVersion)) {
      return { ...base, release: apiVersion, source: 'hosted', how: `the hosted edition's dated release ${apiVersion}, its REST API version` };
    }
    return { ...base, how: `the hosted edition reports no dated version${apiVersion ? ` (currentVersion "${apiVersion}")` : ''}` };
  }
  const reasons: string[] = ['the REST root has no enterpriseVersion (it has from 11.3 on)'];
  if (administration && 'answer' in administration) {
    const version = text(administration.answer['version']);
    if (version !== undefined && isDottedVersion(version)) {
      return { ...base, release: releaseName(version), source: 'portaladmin', how: `version ${version} at the Portal Administration root` };
    }
    reasons.push('the Portal Administration root gives no version');
  } else if (administration) {
    reasons.push(`the Portal Administration root could not be read (${administration.refused})`);
  }
  const row = reported === undefined ? 'no REST API version was reported' : apiVersionRow(reported);
  if (typeof row !== 'string') return { ...base, release: row.release, source: 'api-version-table', how: `REST API version ${row.apiVersion} is release ${row.release} (${row.source})` };
  reasons.push(row);
  return { ...base, how: reasons.join('; ') };
}

/**
 * Learns the release of the portal behind `reader` (`portals/self` already read): the REST root
 * first, the Portal Administration root only on the self-managed edition when the root does not
 * say. A refusal there (not an administrator, an app token, no such API) only makes the release
 * unknown; a network failure is an error like any other.
 */
export async function learnRelease(self: JsonObject, reader: LiveReader, client: Pick<ApiClient, 'getAdministration'>): Promise<PortalRelease> {
  const root = await readOrRefused(async () => reader.get(''));
  const rootAnswer = 'answer' in root ? root.answer : undefined;
  if (self['isPortal'] !== true || text(rootAnswer?.['enterpriseVersion']) !== undefined) return releaseFrom(self, root);
  return releaseFrom(self, root, await readOrRefused(() => client.getAdministration('')));
}

async function readOrRefused(read: () => Promise<JsonObject | undefined>): Promise<Read> {
  try {
    const answer = await read();
    return answer ? { answer } : { refused: 'not found' };
  } catch (error) {
    if (error instanceof ApiError && !(error instanceof ApiNetworkError)) {
      const codes = [error.code, error.messageCode].filter((part) => part !== undefined).join(' ');
      return { refused: `${error.apiMessage}${codes ? `, ${codes}` : ''}` };
    }
    if (error instanceof PortalUrlError) return { refused: error.message };
    throw error;
  }
}
