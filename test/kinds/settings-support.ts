/**
 * Helpers for the end-to-end tests of the organization, group, item and user kinds: what a
 * plan proposes and what the emulator received, in a shape tests can compare exactly.
 */
import { expect } from 'vitest';
import { loadDataFile, type EmulatorState } from '../../src/emulator/index.js';
import { ConfigError, type LoadedConfig } from '../../src/engine/config/index.js';
import type { DesiredObject } from '../../src/kinds/toolkit/contract.js';
import type { JsonValue } from '../../src/core/json.js';
import type { PreparedPlan } from '../../src/engine/plan/prepare.js';
import { SAMPLE_ORG, type TestPortal } from '../support/portal.js';

/** The config header without a declared version: the plan's gates then use the live portal's version. */
export const HEADER_WITHOUT_VERSION = 'version: 1\nportal:\n  url: ${env:PORTAL_URL}\n  edition: self-managed\n';

export interface PlannedSummary {
  address: string;
  action: string;
  operation: string;
  before: JsonValue;
  after: JsonValue;
}

export function planned(prepared: PreparedPlan): PlannedSummary[] {
  return prepared.plan.operations.map((op) => ({
    address: op.address,
    action: op.action,
    operation: op.operation.id,
    before: op.before,
    after: op.after,
  }));
}

export interface ReceivedWrite {
  method: string;
  path: string;
  /** Every parameter received but the token. */
  params: Record<string, string>;
  rawBody: string;
}

/** The writes the emulator received, in order, with the REST root's path only. */
export async function writes(portal: TestPortal): Promise<ReceivedWrite[]> {
  const log = await portal.requests({ writesOnly: true });
  return log.map((entry) => {
    const params = { ...entry.params };
    delete params['token'];
    return { method: entry.method, path: entry.path, params, rawBody: entry.rawBody };
  });
}

/** The sample organization with changes, e.g. another product version. */
export function sampleOrg(adjust: (state: EmulatorState) => void): EmulatorState {
  const state = loadDataFile(SAMPLE_ORG);
  adjust(state);
  return state;
}

/** A desired object for request unit tests (no config, no network). */
export function desired(fields: Pick<DesiredObject, 'kind' | 'address' | 'ids' | 'value'> & Partial<DesiredObject>): DesiredObject {
  return {
    absent: false,
    destructive: false,
    source: { file: 'portalctl.yaml', line: 1, column: 1 },
    ...fields,
  };
}

/** Applies, then checks the convergence the engine reports itself. */
export async function applyAndConverge(portal: TestPortal, config: LoadedConfig): Promise<void> {
  const report = await portal.apply(config);
  if (report.result.failed.length > 0) {
    const failures = report.result.failed.map(({ op, error }) => `${op.address}: ${String(error)}`).join('\n');
    throw new Error(`apply failed:\n${failures}`);
  }
  if (report.after.plan.operations.length > 0) {
    throw new Error(`apply did not converge: ${report.after.plan.operations.map((op) => op.address).join(', ')}`);
  }
}

/**
 * Plans `config` and expects a ConfigError carrying the diagnostic `code` for `address`, with
 * no write sent: the gate is decided before anything reaches the portal.
 */
export async function expectPlanRefused(portal: TestPortal, config: LoadedConfig, code: string, address: string): Promise<ConfigError> {
  await portal.clearRequests();
  const error = await portal.plan(config).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ConfigError)) throw new Error(`expected a ConfigError, got ${String(error)}`);
  const matching = error.diagnostics.filter((diagnostic) => diagnostic.code === code && diagnostic.address === address);
  if (matching.length !== 1) {
    throw new Error(`expected one ${code} diagnostic for ${address}, got: ${JSON.stringify(error.diagnostics)}`);
  }
  const sent = await writes(portal);
  if (sent.length > 0) throw new Error(`a refused plan sent writes: ${JSON.stringify(sent)}`);
  return error;
}

/**
 * A config that matches the portal: the plan is empty, the apply converges, and nothing is
 * written.
 */
export async function expectNothingToSend(portal: TestPortal, config: LoadedConfig): Promise<void> {
  expect((await portal.plan(config)).plan.operations).toEqual([]);
  await portal.clearRequests();
  await applyAndConverge(portal, config);
  expect(await writes(portal)).toEqual([]);
}

/** Loads `yaml`, applies it from an empty request log until it converges, and returns the writes it sent. */
export async function applyConfigText(portal: TestPortal, yaml: string): Promise<{ config: LoadedConfig; sent: ReceivedWrite[] }> {
  const config = await portal.config(yaml);
  await portal.clearRequests();
  await applyAndConverge(portal, config);
  return { config, sent: await writes(portal) };
}
