/** Path checks shared by what the config may read: referenced files, overlays, a directory's links. */
import { isAbsolute, relative, sep } from 'node:path';

/** Whether `target` lies outside `root` (both absolute): `..` on the way, or another drive. */
export function isOutside(target: string, root: string): boolean {
  const inner = relative(root, target);
  return inner === '..' || inner.startsWith(`..${sep}`) || isAbsolute(inner);
}
