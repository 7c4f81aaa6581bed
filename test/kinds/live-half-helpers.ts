/**
 * Helpers for the end-to-end tests of the kinds' live halves (E6, E9-E14): what a plan proposes
 * and what the emulator received, in a form a test can compare exactly.
 */
import { expect } from 'vitest';
import type { LoadedConfig } from '../../src/engine/config/index.js';
import type { DesiredObject } from '../../src/kinds/toolkit/contract.js';
import type { JsonValue } from '../../src/core/json.js';
import type { PreparedPlan } from '../../src/engine/plan/prepare.js';
import type { TestPortal } from '../support/portal.js';

export interface PlannedSummary {
  address: string;
  action: string;
  operation: string;
  destructive: boolean;
  before: JsonValue;
  after: JsonValue;
}

export const planned = (prepared: PreparedPlan): PlannedSummary[] =>
  prepared.plan.operations.map((op) => ({
    address: op.address,
    action: op.action,
    operation: op.operation.id,
    destructive: op.destructive,
    before: op.before,
    after: op.after,
  }));

export interface SentWrite {
  method: string;
  path: string;
  /** Every parameter the emulator received except `f` and the (redacted) token. */
  params: Record<string, string>;
  rawBody: string;
}

/** The writes the emulator received, in order. */
export async function sentWrites(portal: TestPortal): Promise<SentWrite[]> {
  return (await portal.requests({ writesOnly: true })).map((request) => {
    const params = { ...request.params };
    delete params['f'];
    delete params['token'];
    return { method: request.method, path: request.path, params, rawBody: request.rawBody };
  });
}

/** The body as the client encodes it (form order kept, `f=json` last), for an exact comparison. */
export function formBody(fields: Record<string, string>): string {
  const body = new URLSearchParams(fields);
  body.append('f', 'json');
  return body.toString();
}

/** The raw body without the token the client may add to the form (logged as `token=***`). */
export const withoutToken = (rawBody: string): string =>
  rawBody
    .split('&')
    .filter((pair) => !pair.startsWith('token='))
    .join('&');

/** After an apply: the next plan is empty and applying again sends no write. */
export async function expectConverged(portal: TestPortal, config: LoadedConfig, options: { allowDestructive?: boolean } = {}): Promise<void> {
  expect(planned(await portal.plan(config))).toEqual([]);
  await portal.clearRequests();
  const again = await portal.apply(config, options);
  expect(again.result.applied).toEqual([]);
  expect(await sentWrites(portal)).toEqual([]);
}

/** A config that already matches plans nothing and applying it sends no write. */
export async function expectNothingToDo(portal: TestPortal, config: LoadedConfig): Promise<void> {
  expect(planned(await portal.plan(config))).toEqual([]);
  await portal.clearRequests();
  const report = await portal.apply(config);
  expect(report.result.applied).toEqual([]);
  expect(await sentWrites(portal)).toEqual([]);
}

/** A declared object for unit tests of `change()` without a config or network. */
export function declared(kind: string, address: string, ids: Record<string, string>, value: JsonValue): DesiredObject {
  return {
    kind,
    address,
    ids,
    value,
    absent: value === null,
    destructive: false,
    source: { file: 'unit.yaml', line: 1, column: 1 },
  };
}
