import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/core/json.js';
import { buildPlan, type Plan } from '../../src/engine/plan/plan.js';
import { graphNote, planGraph, renderDot, renderGraph, renderMermaid } from '../../src/engine/render/graph.js';
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
  it('draws every operation, in plan order, with arrows from the one that goes first', () => {
    const graph = planGraph(plan(['fed', 'role', 'alone'], { fed: ['role'] }), 'all');
    expect(graph.nodes.map((node) => node.op.address)).toEqual(['fake[alone]', 'fake[role]', 'fake[fed]']);
    expect(graph.edges).toEqual([{ from: 'op2', to: 'op3' }]);
    expect(graph.unconnected).toBe(0);
  });

  it('for the order of operations, only those an order binds, counting the rest', () => {
    const graph = planGraph(plan(['fed', 'role', 'alone'], { fed: ['role'] }), 'ordered');
    expect(graph.nodes.map((node) => node.op.address)).toEqual(['fake[role]', 'fake[fed]']);
    expect(graph.edges).toEqual([{ from: 'op1', to: 'op2' }]);
    expect(graph.unconnected).toBe(1);
    expect(renderMermaid(graph)).toContain('  %% 1 operation without dependencies is not drawn\n');
  });

  it('prints Mermaid with names escaped and the actions as classes', () => {
    const mermaid = renderMermaid(planGraph(plan(['fed', 'role'], { fed: ['role'] }), 'all'));
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
    const dot = renderDot(planGraph(plan(['fed', 'role'], { fed: ['role'] }), 'all'));
    expect(dot).toContain('op1 [label="+ fake[role] — Field \\"editor\\" <GIS>", color="#1a7f37"];');
    expect(dot).toContain('op1 -> op2;');
    expect(dot.startsWith('digraph plan {\n')).toBe(true);
    // No dependency: each operation a lone node; nothing at all: still a diagram (`dot -Tsvg` takes it); why, for people, apart.
    expect(renderGraph(plan(['a', 'b']), 'dot')).toBe(
      'digraph plan {\n  rankdir=LR;\n  node [shape=box, fontname="Helvetica"];\n  op1 [label="+ fake[a]", color="#1a7f37"];\n  op2 [label="+ fake[b]", color="#1a7f37"];\n}\n',
    );
    expect(renderGraph(plan(['a']), 'mermaid')).toBe(
      'flowchart LR\n  op1["+ fake[a]"]:::create\n  classDef create stroke:#1a7f37,stroke-width:2px\n  classDef update stroke:#9a6700,stroke-width:2px\n  classDef delete stroke:#cf222e,stroke-width:2px\n',
    );
    expect(renderGraph(plan([]), 'dot')).toBe('digraph plan {\n  rankdir=LR;\n  node [shape=box, fontname="Helvetica"];\n}\n');
    expect(graphNote(plan(['a']))).toBe("No operation depends on another: the plan's 1 operation can run in any order, so the graph draws it without arrows.\n");
    expect(graphNote(plan(['a', 'b']))).toBe("No operation depends on another: the plan's 2 operations can run in any order, so the graph draws them without arrows.\n");
    expect(graphNote(plan([]))).toBe('No changes: the plan has no operations, so the graph is empty.\n');
    expect(graphNote(plan(['fed', 'role', 'alone'], { fed: ['role'] }))).toBeUndefined();
  });
});

describe('the graph in the markdown plan', () => {
  it('is there when operations depend on others, as the same Mermaid text', () => {
    const withDeps = plan(['fed', 'role'], { fed: ['role'] });
    const md = renderPlanMarkdown(withDeps);
    expect(md).toContain(`#### Order of operations\n\n\`\`\`mermaid\n${renderMermaid(planGraph(withDeps, 'ordered'))}\`\`\``);
    // Only what an order binds: an operation without dependencies is in the tables, not the diagram.
    expect(renderPlanMarkdown(plan(['fed', 'role', 'alone'], { fed: ['role'] }))).not.toContain('fake[alone]"]');
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
