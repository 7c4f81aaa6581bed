/**
 * Product versions are dotted numbers ("10.6.1", "11.3", "2025.1"). They are compared part by
 * part as integers, never as floats ("10.10" is newer than "10.9").
 */
const dottedNumbers = /^\d+(\.\d+)*$/;

export function isDottedVersion(version: string): boolean {
  return dottedNumbers.test(version);
}

/** -1, 0 or 1; undefined when either side is not a dotted numeric version. Missing parts are 0. */
export function compareVersions(left: string, right: string): -1 | 0 | 1 | undefined {
  if (!isDottedVersion(left) || !isDottedVersion(right)) return undefined;
  const a = left.split('.').map(Number);
  const b = right.split('.').map(Number);
  for (let index = 0; index < Math.max(a.length, b.length); index += 1) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) return difference < 0 ? -1 : 1;
  }
  return 0;
}
