import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { expect } from 'vitest';
import { parseEmulatorState } from '../../../src/emulator/state/data-file.js';
import { PortalApiError } from '../../../src/emulator/errors.js';
import { LEVEL_1_PRIVILEGES, type EmulatorState } from '../../../src/emulator/state/model.js';
import { routes } from '../../../src/emulator/route-table.js';
import type { Caller, RouteResult, UploadedFile } from '../../../src/emulator/shared/types.js';

const SAMPLE = fileURLToPath(new URL('../../../examples/emulator/portal.yaml', import.meta.url));

export const NOW = 1_800_000_000_000;
export const ORG_ID = '0123456789ABCDEF';

/** The sample organization with the data file's defaults filled in, as the emulator loads it. */
export function sampleState(): EmulatorState {
  return parseEmulatorState(parse(readFileSync(SAMPLE, 'utf8')), SAMPLE);
}

/** A Caller as the server builds it: org_admin holds every privilege; level 1 keeps only the nine. */
export function callerFor(state: EmulatorState, username: string): Caller {
  const user = state.users.find((candidate) => candidate.username === username);
  if (!user) throw new Error(`no user ${username} in the test state`);
  const customRole = state.roles.find((role) => role.id === user.role);
  const isDefaultAdmin = user.role === 'org_admin';
  return {
    user,
    ...(customRole ? { customRole } : {}),
    isDefaultAdmin,
    hasPrivilege(privilege: string): boolean {
      if (isDefaultAdmin) return true;
      if (!customRole?.privileges.includes(privilege)) return false;
      return user.level === 2 || LEVEL_1_PRIVILEGES.includes(privilege);
    },
  };
}

export interface CallOptions {
  params?: Record<string, string>;
  pathParams?: Record<string, string>;
  as?: string;
  rawBody?: string;
  files?: Record<string, UploadedFile>;
  now?: number;
}

/** Runs the route with that pattern against `state` (mutated in place, like the server's draft). */
export function call(state: EmulatorState, pattern: string, options: CallOptions = {}): RouteResult {
  const route = routes.find((candidate) => candidate.pattern === pattern);
  if (!route) throw new Error(`no route ${pattern}`);
  return route.handle({
    state,
    params: options.params ?? {},
    files: options.files ?? {},
    pathParams: { portalId: 'self', ...(options.pathParams ?? {}) },
    caller: callerFor(state, options.as ?? 'admin'),
    now: options.now ?? NOW,
    ...(options.rawBody !== undefined ? { rawBody: options.rawBody } : {}),
  });
}

export function body(result: RouteResult): Record<string, unknown> {
  if (result.type !== 'json') throw new Error('expected a JSON result');
  return result.body;
}

export interface ExpectedError {
  code: number;
  /** Omitted: the envelope has no messageCode (the documentation names none for the condition). */
  messageCode?: string | undefined;
  detail?: string | RegExp;
  /** Matched against the message and the details: which undocumented condition it was. */
  says?: RegExp;
}

/** Runs `action` and checks the PortalApiError it throws. */
export function expectApiError(action: () => unknown, expected: ExpectedError): PortalApiError {
  let caught: unknown;
  try {
    action();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(PortalApiError);
  const error = caught as PortalApiError;
  expect({ code: error.code, messageCode: error.messageCode }).toEqual({ code: expected.code, messageCode: expected.messageCode });
  if (expected.says !== undefined) expect([error.message, ...error.details].join('\n')).toMatch(expected.says);
  if (expected.detail !== undefined) {
    const details = error.details.join('\n');
    if (typeof expected.detail === 'string') expect(details).toContain(expected.detail);
    else expect(details).toMatch(expected.detail);
  }
  return error;
}
