#!/usr/bin/env node
// Build step after `tsc -p tsconfig.types.json`: the emulator's declarations again as .d.cts files,
// the types of the `require` condition of package.json's "exports". The package is "type":
// "module", so TypeScript reads its .d.ts files as ES module types, and refuses a CommonJS
// consumer's import of them under moduleResolution node16 (TS1479), although the file both
// conditions load, dist/bin/emulator.cjs, is CommonJS. Each .d.cts is its .d.ts with relative
// specifiers pointing at the .cjs siblings, so that a CommonJS consumer never reaches ES module
// types; the declarations import nothing else than each other and node: built-ins.
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const types = join(root, 'dist', 'types', 'emulator');

/** `from './x.js'`, `import('../y.js')`, `import './z.js'`: a relative specifier of a declaration. */
const RELATIVE_JS = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.\.?\/[^'"]*)\.js\2/g;

const files = (await readdir(types, { recursive: true })).filter((name) => name.endsWith('.d.ts') || name.endsWith('.d.cts'));
// Those of an earlier build first: a source renamed since must not leave its old .d.cts behind.
await Promise.all(files.filter((name) => name.endsWith('.d.cts')).map((name) => rm(join(types, name))));
for (const name of files.filter((file) => file.endsWith('.d.ts'))) {
  const text = (await readFile(join(types, name), 'utf8')).replace(RELATIVE_JS, '$1$2$3.cjs$2');
  // A relative specifier of another shape would point a CommonJS consumer back at ES module types.
  const left = /(['"])\.\.?\/[^'"]*\1/.exec(text.replace(/(['"])\.\.?\/[^'"]*\.cjs\1/g, ''));
  if (left) throw new Error(`dist/types/emulator/${name}: the relative specifier ${left[0]} does not end in .js; cjs-types.mjs rewrites only those`);
  await writeFile(join(types, name.replace(/\.d\.ts$/, '.d.cts')), text);
}
