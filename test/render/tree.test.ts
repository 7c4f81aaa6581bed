import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/core/json.js';
import { valueLines } from '../../src/engine/render/diff.js';
import { diffBlockLines } from '../../src/engine/render/markdown.js';
import { painter } from '../../src/engine/render/style.js';
import { textLines } from '../../src/engine/render/text.js';
import { isCategoryForest } from '../../src/engine/render/tree.js';

const text = (before: JsonValue, after: JsonValue): string[] => textLines(valueLines(before, after), painter(false), '');

const themes = (...children: JsonValue[]): JsonValue => ({ title: 'Themes', categories: children });

describe('category schemas diff as trees matched by title', () => {
  it('recognises a category schema and nothing else', () => {
    expect(isCategoryForest([{ title: 'A', categories: [{ title: 'B', description: 'b' }] }])).toBe(true);
    expect(isCategoryForest([{ title: 'A', other: 1 }])).toBe(false);
    expect(isCategoryForest([{ name: 'A' }])).toBe(false);
  });

  it('shows an added category with its children, and counts the unchanged ones', () => {
    const before = [themes({ title: 'Hydrology' }, { title: 'Roads' })];
    const after = [themes({ title: 'Hydrology', categories: [{ title: 'Culverts' }, { title: 'Dams' }] }, { title: 'Roads' })];
    expect(text(before, after)).toEqual(['~ Themes', '~   Hydrology', '+     Culverts', '+     Dams', '    # (1 unchanged category hidden)']);
  });

  it('shows a removed subtree with every node marked', () => {
    const before = [themes({ title: 'Hydrology', categories: [{ title: 'Culverts' }] }), { title: 'Audience' }];
    const after = [{ title: 'Audience' }];
    expect(text(before, after)).toEqual(['- Themes', '-   Hydrology', '-     Culverts', '  # (1 unchanged category hidden)']);
  });

  it('reads a lone removed node beside a lone added one as a rename, keeping its children', () => {
    const before = [themes({ title: 'Work orders', categories: [{ title: 'Open' }] }, { title: 'Roads' })];
    const after = [themes({ title: 'Work requests', categories: [{ title: 'Open' }, { title: 'Closed' }] }, { title: 'Roads' })];
    expect(text(before, after)).toEqual(['~ Themes', '~   Work orders -> Work requests  (renamed)', '+     Closed', '      # (1 unchanged category hidden)', '    # (1 unchanged category hidden)']);
  });

  it('does not guess a rename when two nodes are removed and two added', () => {
    const lines = text([{ title: 'A' }, { title: 'B' }], [{ title: 'C' }, { title: 'D' }]);
    expect(lines).toEqual(['+ C', '+ D', '- A', '- B']);
  });

  it('shows a category moved to another parent once, where it now is', () => {
    const before = [themes({ title: 'Hydrology', categories: [{ title: 'Culverts' }] }, { title: 'Roads' })];
    const after = [themes({ title: 'Hydrology' }, { title: 'Roads', categories: [{ title: 'Culverts' }] })];
    expect(text(before, after)).toEqual([
      '~ Themes',
      '~   Hydrology',
      '      # Culverts moved to Themes / Roads',
      '~   Roads',
      '~     Culverts  (moved from Themes / Hydrology)',
    ]);
  });

  it('shows a reorder of siblings with the positions', () => {
    const lines = text([{ title: 'A' }, { title: 'B' }, { title: 'C' }], [{ title: 'B' }, { title: 'A' }, { title: 'C' }]);
    expect(lines).toEqual(['~ B  (moved from position 2 to 1)', '~ A  (moved from position 1 to 2)', '  # (1 unchanged category hidden)']);
  });

  it('shows a changed description as a one-line change', () => {
    expect(text([{ title: 'A', description: 'old' }], [{ title: 'A', description: 'new' }])).toEqual(['~ A', '~   description: "old" -> "new"']);
  });

  it('draws the same tree in a markdown diff block', () => {
    const lines = diffBlockLines(valueLines([{ title: 'A', description: 'old' }], [{ title: 'A', description: 'new' }, { title: 'B' }]));
    expect(lines).toEqual(['~ A', '-   description: "old"', '+   description: "new"', '+ B']);
  });

  it('diffs a category schema nested in an object as a tree under its field', () => {
    const lines = text({ name: 'x', categories: [{ title: 'A' }] }, { name: 'x', categories: [{ title: 'A' }, { title: 'B' }] });
    expect(lines).toEqual(['~ categories:', '+   B', '    # (1 unchanged category hidden)', '  # (1 unchanged field hidden)']);
  });
});
