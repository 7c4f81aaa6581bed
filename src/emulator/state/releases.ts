/**
 * The self-managed releases the emulator can play: what each reports, and how releases compare.
 * Versions are compared by their dotted numeric parts ("10.10" > "10.9"), never as floats.
 */

/**
 * What the public documentation shows a self-managed release reporting, by release: the REST API
 * version (`currentVersion`) and the build. Source: the Root resource page
 * (developers.arcgis.com/rest/users-groups-and-items/root), an Enterprise 11.3 answering
 * {"currentVersion": "2024.1", "enterpriseVersion": "11.3.0", "enterpriseBuild": "51526"}. A data
 * file that plays another release states its `apiVersion` itself.
 */
const DOCUMENTED_RELEASES: Readonly<Record<string, { apiVersion: string; build: string }>> = {
  '11.3': { apiVersion: '2024.1', build: '51526' },
};

export function isDottedVersion(version: string): boolean {
  return /^\d+(\.\d+)*$/.test(version.trim());
}

/** The documented API version and build of a self-managed release ("11.3" and "11.3.0" alike). */
export function documentedRelease(release: string): { apiVersion: string; build: string } | undefined {
  const key = Object.keys(DOCUMENTED_RELEASES).find((known) => isDottedVersion(release) && compareVersions(known, release) === 0);
  return key === undefined ? undefined : DOCUMENTED_RELEASES[key];
}

/** A release as three parts, as `enterpriseVersion` and the Portal Administration root write it ("11.3" -> "11.3.0"). */
export function threePartVersion(release: string): string {
  const parts = release.split('.');
  while (parts.length < 3) parts.push('0');
  return parts.join('.');
}

function versionParts(version: string): number[] {
  const parts = version.trim().split('.');
  if (parts.length === 0 || parts.some((part) => !/^\d+$/.test(part))) {
    throw new Error(`The organization's version '${version}' is not a dotted number such as "11.3".`);
  }
  return parts.map((part) => Number.parseInt(part, 10));
}

/** Negative when a < b, zero when equal ("10.5" equals "10.5.0"), positive when a > b. */
export function compareVersions(a: string, b: string): number {
  const left = versionParts(a);
  const right = versionParts(b);
  for (let index = 0; index < Math.max(left.length, right.length); index += 1) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

