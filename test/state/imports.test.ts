/** src/state imports only src/core and itself, with no circle among its files. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const dir = fileURLToPath(new URL('../../src/state', import.meta.url));

it('src/state has no import circle and imports nothing above core', () => {
  const graph = new Map<string, string[]>();
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.ts'))) {
    const text = readFileSync(join(dir, file), 'utf8');
    const specifiers = [...text.matchAll(/from '(\.{1,2}\/[^']+)'/g)].map((match) => match[1] ?? '');
    for (const specifier of specifiers.filter((spec) => spec.startsWith('../'))) expect(specifier, `${file} imports ${specifier}`).toMatch(/^\.\.\/core\//);
    graph.set(file, specifiers.filter((spec) => spec.startsWith('./')).map((spec) => spec.slice(2).replace(/\.js$/, '.ts')));
  }
  const circles: string[] = [];
  const visit = (file: string, path: string[]): void => {
    for (const next of graph.get(file) ?? []) {
      if (path.includes(next)) circles.push([...path, next].join(' -> '));
      else visit(next, [...path, next]);
    }
  };
  for (const file of graph.keys()) visit(file, [file]);
  expect(graph.size).toBeGreaterThan(5);
  expect(circles).toEqual([]);
});
