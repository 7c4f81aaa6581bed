import { describe, expect, it } from 'vitest';
import { buildPlan } from '../../src/engine/plan/plan.js';
import { renderDrift } from '../../src/engine/render/drift.js';
import { renderFleetMarkdown, sectionLimit } from '../../src/engine/render/fleet.js';
import { MARKDOWN_LIMIT, renderPlanMarkdown } from '../../src/engine/render/markdown.js';
import type { JsonValue } from '../../src/core/json.js';
import type { Kind } from '../../src/kinds/toolkit/contract.js';
import { desired, fakeKind } from './fake-kind.js';

function plan(objects: ReturnType<typeof desired>[], basis: [string, JsonValue][] = [], recorded = {}) {
  const kind = fakeKind();
  return buildPlan({
    objects,
    basis: new Map(basis),
    recorded,
    kinds: new Map<string, Kind>([[kind.name, kind]]),
    portal: { url: 'https://p.example.com/sharing/rest' },
    refreshed: true,
    state: null,
    targets: [],
  });
}

describe('renderPlanMarkdown', () => {
  it('puts the summary first, then a table, folded diffs, destructive call-out and drift', () => {
    const md = renderPlanMarkdown(
      plan([desired('a', { x: 2 }), desired('b', null, { destructive: true }), desired('c', 1)], [['fake[a]', { x: 1 }], ['fake[b]', 1], ['fake[c]', 2]], {
        'fake[c]': { kind: 'fake', value: 1 },
      }),
    );
    const lines = md.split('\n');
    expect(lines[2]).toBe('**Plan: 0 to create, 2 to update, 1 to delete (1 destructive).**');
    expect(md).toContain('⚠️ **Destructive operations (1):** `fake[b]`');
    expect(md).toContain('| ✏️ update | `fake[a]` |  | E0 fake update |  |');
    expect(md).toContain('| 🗑️ delete | `fake[b]` |  | E0 fake update | **yes** |');
    // One collapsible section per kind, its counts in the summary, every change in a diff block.
    expect(md).toContain('<details><summary><b>fake</b>: 2 to update, 1 to delete (1 destructive)</summary>');
    expect(md).toMatch(/```diff\n~ fake\[a\]\n- {3}x: 1\n\+ {3}x: 2\n- fake\[b\] {2}\(destructive\)\n- {3}\(value\): 1\n\+ {3}\(value\): null\n~ fake\[c\]\n/);
    expect(md).toContain("#### Drift\n\n| address | changed fields | to keep the portal's value |\n|---|---|---|\n| `fake[c]` | (value) | write it in the configuration (`portalctl apply` would set it back; `portalctl apply --refresh-only` records it as seen) |");
  });

  it('says when there is nothing to do', () => {
    expect(renderPlanMarkdown(plan([desired('a', 1)], [['fake[a]', 1]]))).toContain('**No changes. The portal matches the configuration.**');
  });

  it('stays under 60,000 characters for 10,000 operations and says where the full plan is', () => {
    const objects = Array.from({ length: 10_000 }, (_, i) => desired(`obj-${String(i).padStart(5, '0')}`, { value: i, label: 'x'.repeat(30) }));
    const md = renderPlanMarkdown(plan(objects), { fullPlanHint: 'the `plan.json` artifact of this job' });
    expect(md.length).toBeLessThanOrEqual(60_000);
    expect(md.startsWith('### portalctl plan\n\n**Plan: 10000 to create')).toBe(true);
    expect(md).toMatch(/✂️ \*\*Truncated:\*\* this comment shows \d+ of \d+ lines .* Full plan: the `plan.json` artifact of this job\.\n$/);
    expect((md.match(/<details>/g) ?? []).length).toBe((md.match(/<\/details>/g) ?? []).length);
  });
});

describe('markdown of drift and of a fleet', () => {
  const drifted = (count: number) =>
    plan(
      Array.from({ length: count }, (_, i) => desired(`obj-${String(i).padStart(5, '0')}`, { value: i, label: 'x'.repeat(30) })),
      Array.from({ length: count }, (_, i): [string, JsonValue] => [`fake[obj-${String(i).padStart(5, '0')}]`, { value: -i, label: 'y'.repeat(30) }]),
      Object.fromEntries(Array.from({ length: count }, (_, i) => [`fake[obj-${String(i).padStart(5, '0')}]`, { kind: 'fake', value: { value: i, label: 'x'.repeat(30) } }])),
    );

  it('a drift report keeps to the share of the limit a fleet gives it', () => {
    const report = drifted(3000);
    expect(report.drift.length).toBe(3000);
    expect(renderDrift(report, 'markdown', true).length).toBeGreaterThan(sectionLimit(3));
    const section = renderDrift(report, 'markdown', true, { color: false, markdownLimit: sectionLimit(3) });
    expect(section.length).toBeLessThanOrEqual(sectionLimit(3));
    expect(section).toMatch(/✂️ \*\*Truncated:\*\* .* Full plan: run `portalctl drift` locally\.\n$/);
  });

  it('a fleet report stays under the limit however many environments it has', () => {
    const environments = Array.from({ length: 40 }, (_, i) => `env${String(i).padStart(2, '0')}`);
    const section = renderDrift(drifted(300), 'markdown', true, { color: false, markdownLimit: sectionLimit(environments.length) });
    // Each section at its floor: 40 of them are more than the limit together.
    expect(section.length * environments.length).toBeGreaterThan(MARKDOWN_LIMIT);
    const entries = environments.map((environment) => ({ environment, outcome: 'drift', exitCode: 3, changes: 0, drift: 300, ms: 1000 }));
    const md = renderFleetMarkdown('drift', entries, new Map(environments.map((environment) => [environment, section])));
    expect(md.length).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    expect(md.startsWith('### portalctl drift: 40 environments\n')).toBe(true);
    // The whole summary table is kept; the sections are cut at a whole line, every <details> closed.
    for (const environment of environments) expect(md).toMatch(new RegExp(`^\\| ${environment} \\| 0 \\| 300 \\| drift \\| 1\\.0 s \\|$`, 'm'));
    expect(md).toMatch(/✂️ \*\*Truncated:\*\* .* Full plan: run `portalctl drift` with `--env NAME` for one environment\.\n$/);
    expect((md.match(/<details>/g) ?? []).length).toBe((md.match(/<\/details>/g) ?? []).length);
    expect((md.match(/^```/gm) ?? []).length % 2).toBe(0);
    // A small fleet is not cut as a whole (its sections were, each to its share).
    const small = renderFleetMarkdown('drift', entries.slice(0, 2), new Map(environments.slice(0, 2).map((environment) => [environment, section])));
    expect(small).not.toContain('--env NAME');
    // Its headings a level below the environment's.
    const nested = section.replace(/^### portalctl drift\n+/, '').trimEnd().replace(/^#### /gm, '##### ');
    expect(nested).toContain('##### Drift (recorded → now)\n');
    expect(small).toContain(`#### env01\n\n${nested}\n`);
  });
});
