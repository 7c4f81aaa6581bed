/**
 * The shape of the house, enforced: ESLint (eslint.config.js) over the whole tree, and proof
 * that its import rules fail on imports that run the wrong way or close a circle.
 */
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const eslint = new ESLint({ cwd: root });

/** The rule ids ESLint reports for `source` as if it were the file `path`. */
async function rulesBrokenBy(path: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: `${root}${path}` });
  return (result?.messages ?? []).map((message) => message.ruleId ?? message.message);
}

describe('lint', () => {
  it('the whole tree passes ESLint, import directions and cycles included', async () => {
    const results = await eslint.lintFiles(['.']);
    const problems = results.flatMap((result) =>
      result.messages.map((message) => `${result.filePath.slice(root.length)}:${message.line}:${message.column} ${message.ruleId}: ${message.message}`),
    );
    expect(problems).toEqual([]);
  }, 180_000);

  it.each([
    ['the engine importing the registry of kinds', 'src/engine/bad.ts', "import { kinds } from '../kinds/index.js';\nexport const n = kinds.length;\n"],
    ['the engine importing a particular kind', 'src/engine/bad.ts', "import { role } from '../kinds/role.js';\nexport const n = role.name;\n"],
    ['the engine importing the composition root', 'src/engine/bad.ts', "import { registry } from '../registry.js';\nexport const n = registry.kinds.length;\n"],
    ['a kind importing the engine', 'src/kinds/bad.ts', "import { planSession } from '../engine/pipeline.js';\nexport const f = planSession;\n"],
    ['the API client importing the state', 'src/api/bad.ts', "import { newState } from '../state/index.js';\nexport const f = newState;\n"],
    ['the state importing the API client', 'src/state/bad.ts', "import { createApiClient } from '../api/index.js';\nexport const f = createApiClient;\n"],
    ['core importing anything of ours', 'src/core/bad.ts', "import { newState } from '../state/index.js';\nexport const f = newState;\n"],
    ['the emulator importing core', 'src/emulator/bad.ts', "import { canonicalJson } from '../core/json.js';\nexport const f = canonicalJson;\n"],
    ['the engine importing the CLI', 'src/engine/bad.ts', "import { processIO } from '../cli/io.js';\nexport const f = processIO;\n"],
  ])('fails on %s', async (_name, path, source) => {
    expect(await rulesBrokenBy(path, source)).toContain('import-x/no-restricted-paths');
  });

  it('fails on an import circle, direct or through other files', async () => {
    // order.ts importing plan.ts, which imports order.ts.
    expect(await rulesBrokenBy('src/engine/order.ts', "import { buildPlan } from './plan.js';\nexport const f = buildPlan;\n")).toContain('import-x/no-cycle');
    // plan.ts importing apply.ts closes apply -> pipeline -> plan -> apply.
    expect(await rulesBrokenBy('src/engine/plan.ts', "import { applyConfig } from './apply.js';\nexport const f = applyConfig;\n")).toContain('import-x/no-cycle');
  });

  it('allows what runs downward', async () => {
    expect(await rulesBrokenBy('src/engine/ok.ts', "import type { Kind } from '../kinds/contract.js';\nimport { canonicalJson } from '../core/json.js';\nexport type K = Kind;\nexport const f = canonicalJson;\n")).toEqual([]);
    expect(await rulesBrokenBy('src/cli/ok.ts', "import { registry } from '../registry.js';\nexport const n = registry.kinds.length;\n")).toEqual([]);
  });
});
