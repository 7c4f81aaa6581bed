/**
 * The licence texts of the packages the bundles inline (scripts/bundle.mjs), written beside them:
 * the published package has no runtime dependency, so no node_modules carries their notices.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join, sep } from 'node:path';

/** The file's name in dist/bin/ (shipped with the bundles: package.json `files`). */
export const THIRD_PARTY_LICENSES = 'THIRD-PARTY-LICENSES.txt';

/** A package's own licence files: LICENSE, LICENCE, LICENSE.md, LICENSE-MIT, COPYING, NOTICE... */
const LICENSE_FILE = /^(licen[cs]e|copying|notice)([.-].*)?$/i;

/** A README's licence section (its heading to the next heading of the same level or higher), or undefined. */
function readmeLicenseSection(markdown) {
  const lines = markdown.split(/\r?\n/);
  const start = lines.findIndex((line) => /^#{1,6}\s+licen[cs]e\b/i.test(line));
  if (start < 0) return undefined;
  const level = /^#+/.exec(lines[start])[0].length;
  const end = lines.findIndex((line, index) => index > start && /^#+\s/.test(line) && /^#+/.exec(line)[0].length <= level);
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n').trim() || undefined;
}

/** The directory of the package that holds `file`: its innermost node_modules/<name> or node_modules/@scope/<name>. */
function packageRoot(file) {
  const marker = `${sep}node_modules${sep}`;
  const at = file.lastIndexOf(marker);
  if (at < 0) return undefined;
  const [first, second] = file.slice(at + marker.length).split(sep);
  return file.slice(0, at + marker.length) + (first.startsWith('@') ? join(first, second) : first);
}

/**
 * The notices file: for each package whose files are among `files` (absolute paths), by name,
 * its name, version and declared licence, then the text of each of its licence files (else its
 * README's licence section). A package with neither fails the build: its notice would be missing.
 */
export async function thirdPartyLicenses(files) {
  const roots = [...new Set(files.map(packageRoot).filter((root) => root !== undefined))];
  const packages = await Promise.all(
    roots.map(async (root) => {
      const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
      const names = await readdir(root);
      const licenseFiles = names.filter((name) => LICENSE_FILE.test(name)).sort();
      const texts = await Promise.all(licenseFiles.map(async (name) => (await readFile(join(root, name), 'utf8')).trim()));
      // Some packages (pgpass) give their licence only in their README.
      const readme = names.find((name) => /^readme(\.md|\.markdown)?$/i.test(name));
      const section = texts.length === 0 && readme ? readmeLicenseSection(await readFile(join(root, readme), 'utf8')) : undefined;
      if (section) texts.push(section);
      if (texts.length === 0) throw new Error(`${manifest.name} (${root}) is inlined in the bundles but ships no licence text to copy into ${THIRD_PARTY_LICENSES}`);
      const declared = typeof manifest.license === 'string' ? manifest.license : 'see below';
      return { name: manifest.name, text: `${manifest.name}@${manifest.version} (${declared})\n\n${texts.join('\n\n')}\n` };
    }),
  );
  // One entry per package name (a second copy at another version is its own entry), in name order.
  const entries = [...new Map(packages.map((entry) => [entry.text, entry])).values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const rule = `\n${'-'.repeat(78)}\n\n`;
  return `portalctl's bundles (dist/bin/*.cjs) include code from the packages below, under their own licences.\n${rule}${entries.map((entry) => entry.text).join(rule)}`;
}
