import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/core/json.js';
import { buildPlan, type Plan } from '../../src/engine/plan/plan.js';
import { emptyGraphNote, planGraph, renderDot, renderGraph, renderMermaid } from '../../src/engine/render/graph.js';
import { renderPlanMarkdown } from '../../src/engine/render/markdown.js';
import type { Kind } from '../../src/kinds/toolkit/contract.js';
import { desired, fakeKind } from '../engine/fake-kind.js';

/** `after` names, per id, the ids it waits for. */
function plan(ids: string[], after: Record<string, string[]> = {}): Plan {
  const kind = fakeKind('fake', (obj) => (after[obj.ids['id'] as string] ?? []).map((id) => `fake[${id}]`));
  const built = buildPlan({
    objects: ids.map((id) => desired(id, { v: 1 })),
    basis: new Map<string, JsonValue>(),
    recorded: {},
    kinds: new Map<string, Kind>([[kind.name, kind]]),
    portal: { url: 'https://p.example.com/sharing/rest' },
    refreshed: true,
    state: null,
    targets: [],
  });
  for (const op of built.operations) if (op.address === 'fake[role]') op.label = 'Field "editor" <GIS>';
  return built;
}

describe('the graph of operations', () => {
  it('draws the operations that depend on others, from the one that goes first', () => {
    const graph = planGraph(plan(['fed', 'role', 'alone'], { fed: ['role'] }));
    expect(graph.nodes.map((node) => node.op.address)).toEqual(['fake[role]', 'fake[fed]']);
    expect(graph.edges).toEqual([{ from: 'op1', to: 'op2' }]);
    expect(graph.unconnected).toBe(1);
  });

  it('prints Mermaid with names escaped and the actions as classes', () => {
    const mermaid = renderMermaid(planGraph(plan(['fed', 'role'], { fed: ['role'] })));
    expect(mermaid.split('\n')).toEqual(
      expect.arrayContaining([
        'flowchart LR',
        '  op1["+ fake[role] — Field #quot;editor#quot; #lt;GIS#gt;"]:::create',
        '  op2["+ fake[fed]"]:::create',
        '  op1 --> op2',
      ]),
    );
  });

  it('prints DOT with quotes escaped', () => {
    const dot = renderDot(planGraph(plan(['fed', 'role'], { fed: ['role'] })));
    expect(dot).toContain('op1 [label="+ fake[role] — Field \\"editor\\" <GIS>", color="#1a7f37"];');
    expect(dot).toContain('op1 -> op2;');
    expect(dot.startsWith('digraph plan {\n')).toBe(true);
    // Nothing to draw: still a diagram (`dot -Tsvg` takes it), saying what it leaves out; why, for people, apart.
    expect(renderGraph(plan(['a']), 'dot')).toBe('digraph plan {\n  rankdir=LR;\n  node [shape=box, fontname="Helvetica"];\n  // 1 operation without dependencies is not drawn\n}\n');
    expect(renderGraph(plan([]), 'mermaid').startsWith('flowchart LR\n')).toBe(true);
    expect(emptyGraphNote(plan(['a']))).toBe("No operation depends on another: the plan's 1 operation can run in any order, so the graph is empty.\n");
    expect(emptyGraphNote(plan([]))).toBe('No changes: the plan has no operations, so the graph is empty.\n');
    expect(emptyGraphNote(plan(['fed', 'role'], { fed: ['role'] }))).toBeUndefined();
  });
});

describe('the graph in the markdown plan', () => {
  it('is there when operations depend on others, as the same Mermaid text', () => {
    const withDeps = plan(['fed', 'role'], { fed: ['role'] });
    const md = renderPlanMarkdown(withDeps);
    expect(md).toContain(`#### Order of operations\n\n\`\`\`mermaid\n${renderGraph(withDeps, 'mermaid')}\`\`\``);
    expect(renderPlanMarkdown(plan(['a', 'b']))).not.toContain('mermaid');
  });

  it('is left out with a note when it would take over the comment, and the comment stays under its cap', () => {
    const ids = Array.from({ length: 3000 }, (_, i) => `n${String(i).padStart(4, '0')}`);
    const chain = Object.fromEntries(ids.slice(1).map((id, i) => [id, [ids[i] as string]]));
    const md = renderPlanMarkdown(plan(ids, chain));
    expect(md.length).toBeLessThanOrEqual(60_000);
    expect(md).not.toContain('```mermaid');
    expect(md).toContain('_2999 dependencies between 3000 operations: too many to draw here; `portalctl graph` prints the graph._');
  });
});
