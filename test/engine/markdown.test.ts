import { describe, expect, it } from 'vitest';
import { buildPlan } from '../../src/engine/plan/plan.js';
import { renderPlanMarkdown } from '../../src/engine/render/markdown.js';
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
    expect(md).toContain("#### Drift\n\n| address | changed fields | to keep the portal's value |\n|---|---|---|\n| `fake[c]` | (value) | `portalctl apply --refresh-only` (the configuration asks for another value) |");
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
