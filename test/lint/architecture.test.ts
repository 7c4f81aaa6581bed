/**
 * The shape of the house, enforced: ESLint (eslint.config.js) over the whole tree, the import
 * graph of src/ free of circles (type-only imports included), and proof that both fail on
 * imports that run the wrong way or close a circle.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { boundaryViolations, findCycle, importGraph } from './import-graph.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const eslint = new ESLint({ cwd: root });

/** The rule ids ESLint reports for `source` as if it were the file `path`. */
async function rulesBrokenBy(path: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: `${root}${path}` });
  return (result?.messages ?? []).map((message) => message.ruleId ?? message.message);
}

/** The import circle src/ would have if `path` held `source`. */
const cycleWith = (path: string, source: string): string | undefined => findCycle(importGraph(root, { [path]: source }));

const wrongImports = [
  ['the engine importing the registry of kinds', 'src/engine/bad.ts', "import { kinds } from '../kinds/index.js';\nexport const n = kinds.length;\n"],
  ['the engine importing a particular kind', 'src/engine/bad.ts', "import { role } from '../kinds/role.js';\nexport const n = role.name;\n"],
  ['the engine importing the composition root', 'src/engine/bad.ts', "import { registry } from '../registry.js';\nexport const n = registry.kinds.length;\n"],
  ['a kind importing the engine', 'src/kinds/bad.ts', "import { planSession } from '../engine/plan/prepare.js';\nexport const f = planSession;\n"],
  ['the API client importing the state', 'src/api/bad.ts', "import { newState } from '../state/index.js';\nexport const f = newState;\n"],
  ['the state importing the API client', 'src/state/bad.ts', "import { createApiClient } from '../api/index.js';\nexport const f = createApiClient;\n"],
  ['core importing anything of ours', 'src/core/bad.ts', "import { newState } from '../state/index.js';\nexport const f = newState;\n"],
  ['the emulator importing core', 'src/emulator/bad.ts', "import { canonicalJson } from '../core/json.js';\nexport const f = canonicalJson;\n"],
  ['the engine importing the CLI', 'src/engine/bad.ts', "import { processIO } from '../cli/io.js';\nexport const f = processIO;\n"],
] as const;

describe('lint', () => {
  it('the whole tree passes ESLint, import directions included', async () => {
    const results = await eslint.lintFiles(['.']);
    const problems = results.flatMap((result) =>
      result.messages.map((message) => `${result.filePath.slice(root.length)}:${message.line}:${message.column} ${message.ruleId}: ${message.message}`),
    );
    expect(problems).toEqual([]);
  });

  it('the import graph of src/ resolves, has no circle and runs downward, type-only and dynamic imports included', () => {
    const graph = importGraph(root);
    expect(graph.edges.size).toBeGreaterThan(100);
    expect(graph.unresolved).toEqual([]);
    expect(findCycle(graph)).toBeUndefined();
    expect(boundaryViolations(graph)).toEqual([]);
  });

  it.each(wrongImports)('fails on %s', async (_name, path, source) => {
    expect(await rulesBrokenBy(path, source)).toContain('no-restricted-imports');
    // The graph check, which also sees dynamic and type-only imports, agrees.
    expect(boundaryViolations(importGraph(root, { [path]: source }))).toHaveLength(1);
  });

  it('sees wrong imports from a deeper folder, and in forms the ESLint rule cannot read', async () => {
    expect(await rulesBrokenBy('src/engine/config/bad.ts', "import { kinds } from '../../kinds/index.js';\nexport const n = kinds.length;\n")).toContain('no-restricted-imports');
    expect(await rulesBrokenBy('src/engine/config/bad.ts', "import { registry } from '../../registry.js';\nexport const n = registry.kinds.length;\n")).toContain('no-restricted-imports');
    expect(await rulesBrokenBy('src/engine/config/bad.ts', "export type { Kind } from '../../kinds/role.js';\n")).toContain('no-restricted-imports');
    const dynamic = "export const load = async () => (await import('../cli/io.js')).processIO;\n";
    expect(boundaryViolations(importGraph(root, { 'src/engine/bad.ts': dynamic }))).toEqual([
      'src/engine/bad.ts -> src/cli/io.ts: the engine never imports the CLI, the emulator or the registry: the kind set is passed in.',
    ]);
  });

  it('fails on an import circle, direct or through other files, type-only included', () => {
    // order.ts importing plan.ts, which imports order.ts.
    const direct = cycleWith('src/engine/plan/order.ts', "import { buildPlan } from './plan.js';\nexport const f = buildPlan;\n");
    expect(direct).toMatch(/^src\/engine\/plan\/(order|plan)\.ts -> src\/engine\/plan\/(order|plan)\.ts -> src\/engine\/plan\/(order|plan)\.ts$/);
    expect(direct).toContain('src/engine/plan/order.ts -> src/engine/plan/plan.ts');
    // plan.ts importing apply.ts closes apply -> prepare -> plan -> apply (and apply -> execute -> plan -> apply).
    const through = cycleWith('src/engine/plan/plan.ts', "import { applyConfig } from '../apply/apply.js';\nexport const f = applyConfig;\n");
    expect(through).toMatch(/^(src\/engine\/[\w/-]+\.ts) -> .* -> \1$/);
    expect(through).toContain('src/engine/plan/plan.ts -> src/engine/apply/apply.ts');
    // A type-only import closes a circle just the same (import-x/no-cycle used to let it through).
    const typeOnly = cycleWith('src/engine/plan/order.ts', `${readSource('src/engine/plan/order.ts')}\nimport type { Plan } from './plan.js';\nexport type P = Plan;\n`);
    expect(typeOnly).toContain('src/engine/plan/order.ts -> src/engine/plan/plan.ts');
    expect(typeOnly).toContain('src/engine/plan/plan.ts -> src/engine/plan/order.ts');
  });

  it('allows what runs downward', async () => {
    const engineSource = "import type { Kind } from '../kinds/toolkit/contract.js';\nimport { canonicalJson } from '../core/json.js';\nexport type K = Kind;\nexport const f = canonicalJson;\n";
    const cliSource = "import { registry } from '../registry.js';\nexport const n = registry.kinds.length;\n";
    expect(await rulesBrokenBy('src/engine/ok.ts', engineSource)).toEqual([]);
    expect(await rulesBrokenBy('src/cli/ok.ts', cliSource)).toEqual([]);
    // Within a room, a deeper file may import its room's own files in other folders.
    expect(await rulesBrokenBy('src/engine/config/ok.ts', "import { buildPlan } from '../plan/plan.js';\nimport type { KindSet } from '../kind-set.js';\nexport const f = buildPlan;\nexport type S = KindSet;\n")).toEqual([]);
    expect(boundaryViolations(importGraph(root, { 'src/engine/ok.ts': engineSource, 'src/cli/ok.ts': cliSource }))).toEqual([]);
  });
});

function readSource(path: string): string {
  return readFileSync(`${root}${path}`, 'utf8');
}
