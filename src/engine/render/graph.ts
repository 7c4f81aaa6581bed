/**
 * The operations of a plan and their dependencies as a graph: Mermaid (rendered by GitHub and
 * GitLab in markdown) or Graphviz DOT. The markdown plan and `portalctl graph` draw the same one.
 */
import { counted } from '../../core/words.js';
import type { Plan, PlannedOperation } from '../plan/plan.js';
import { dotLabel, mermaidLabel } from './escape.js';
import { SYMBOL, nameOf } from './text.js';

export interface PlanGraph {
  /** The operations drawn, in plan order. */
  nodes: { id: string; op: PlannedOperation }[];
  /** From the operation that must succeed first to the one that waits for it. */
  edges: { from: string; to: string }[];
  /** Operations with no dependency either way, left out (counted in a comment). */
  unconnected: number;
}

/**
 * The plan's operations and their dependencies. `portalctl graph` draws every operation (one
 * with no dependency either way as a lone node: a graph of the plan shows all of it); the
 * markdown comment's "order of operations" only those some order binds, since its tables list
 * the rest.
 */
export function planGraph(plan: Plan, drawn: 'all' | 'ordered'): PlanGraph {
  const connected = new Set<string>();
  for (const op of plan.operations) {
    if (op.dependsOn.length) connected.add(op.address);
    for (const dep of op.dependsOn) connected.add(dep);
  }
  const nodes = plan.operations.filter((op) => drawn === 'all' || connected.has(op.address)).map((op, index) => ({ id: `op${index + 1}`, op }));
  const idOf = new Map(nodes.map((node) => [node.op.address, node.id]));
  const edges = nodes.flatMap(({ id, op }) => op.dependsOn.filter((dep) => idOf.has(dep)).map((dep) => ({ from: idOf.get(dep) as string, to: id })));
  return { nodes, edges, unconnected: plan.operations.length - nodes.length };
}

const nodeText = (op: PlannedOperation): string => `${SYMBOL[op.action]} ${nameOf(op)}`;

export function renderMermaid(graph: PlanGraph): string {
  const lines = ['flowchart LR'];
  for (const { id, op } of graph.nodes) lines.push(`  ${id}["${mermaidLabel(nodeText(op))}"]:::${op.action}`);
  for (const { from, to } of graph.edges) lines.push(`  ${from} --> ${to}`);
  lines.push('  classDef create stroke:#1a7f37,stroke-width:2px', '  classDef update stroke:#9a6700,stroke-width:2px', '  classDef delete stroke:#cf222e,stroke-width:2px');
  if (graph.unconnected) lines.push(`  %% ${counted(graph.unconnected, 'operation')} without dependencies ${graph.unconnected === 1 ? 'is' : 'are'} not drawn`);
  return `${lines.join('\n')}\n`;
}

const DOT_COLOUR = { create: '#1a7f37', update: '#9a6700', delete: '#cf222e' } as const;

export function renderDot(graph: PlanGraph): string {
  const lines = ['digraph plan {', '  rankdir=LR;', '  node [shape=box, fontname="Helvetica"];'];
  for (const { id, op } of graph.nodes) lines.push(`  ${id} [label="${dotLabel(nodeText(op))}", color="${DOT_COLOUR[op.action]}"];`);
  for (const { from, to } of graph.edges) lines.push(`  ${from} -> ${to};`);
  if (graph.unconnected) lines.push(`  // ${counted(graph.unconnected, 'operation')} without dependencies ${graph.unconnected === 1 ? 'is' : 'are'} not drawn`);
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

/** The plan's graph in `format`, every operation drawn: always a diagram, however empty (a pipe into `dot` takes it). */
export function renderGraph(plan: Plan, format: 'mermaid' | 'dot'): string {
  const graph = planGraph(plan, 'all');
  return format === 'dot' ? renderDot(graph) : renderMermaid(graph);
}

/** What the diagram cannot say for itself, in a sentence for people: that it is empty, or has no arrows, and why; undefined otherwise. */
export function graphNote(plan: Plan): string | undefined {
  if (plan.operations.length === 0) return 'No changes: the plan has no operations, so the graph is empty.\n';
  if (planGraph(plan, 'all').edges.length > 0) return undefined;
  return `No operation depends on another: the plan's ${counted(plan.operations.length, 'operation')} can run in any order, so the graph draws ${plan.operations.length === 1 ? 'it' : 'them'} without arrows.\n`;
}
