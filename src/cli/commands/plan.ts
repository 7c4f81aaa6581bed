import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { preparePlan } from '../../engine/pipeline.js';
import { redactPlan } from '../../engine/render/redact.js';
import { renderPlanText } from '../../engine/render/text.js';
import { UsageError } from '../../core/errors.js';
import type { CommandIO } from '../io.js';
import { connect, loadDesired, portalUrl, printWarnings, stateStore, withClient, type SharedOptions } from './common.js';

export interface PlanOptions extends SharedOptions {
  out?: string;
  format: 'text' | 'json' | 'markdown';
  detailedExitcode?: boolean;
  refresh: string;
  target?: string[];
}

export function parseRefresh(value: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new UsageError(`--refresh takes true or false, not "${value}".`);
}

export async function planCommand(paths: string[], options: PlanOptions, io: CommandIO): Promise<number> {
  const refresh = parseRefresh(options.refresh);
  const config = await loadDesired(paths, io);
  const url = portalUrl(config, options);
  const store = stateStore(options, io);
  const client = refresh ? connect(url, options, io) : undefined;
  const prepared = await withClient(client, async () =>
    preparePlan({ config, url, recorded: await store.read(), ...(client ? { client } : {}), targets: options.target ?? [] }),
  );
  printWarnings(prepared.warnings, io);
  const { plan } = prepared;

  if (options.out) {
    const file = resolve(io.cwd, options.out);
    const { serializePlan } = await import('../../engine/plan-file.js');
    await writeFile(file, serializePlan(plan, config.redact), { mode: 0o600 });
    io.stderr(`Saved the plan to ${options.out}; apply it with: portalctl apply --plan ${options.out}\n`);
  }
  const shown = redactPlan(plan, config.redact);
  if (options.format === 'json') io.stdout(`${JSON.stringify(shown, null, 2)}\n`);
  else if (options.format === 'markdown') {
    const { renderPlanMarkdown } = await import('../../engine/render/markdown.js');
    io.stdout(renderPlanMarkdown(shown, options.out ? { fullPlanHint: `the saved plan file \`${options.out}\`` } : {}));
  }
  else io.stdout(renderPlanText(shown, { color: io.color }));

  return options.detailedExitcode && plan.operations.length > 0 ? 2 : 0;
}
