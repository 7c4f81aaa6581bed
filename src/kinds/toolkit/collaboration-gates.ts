/** The spec's Versioning table for the collaboration operations (E9, E11, E13, E14): 10.5. */
import type { Diagnostic } from '../../core/diagnostics.js';
import type { CheckContext, DesiredObject } from './contract.js';
import { problem, selfManagedVersionBelow } from './support.js';

export function collaborationVersionGate(obj: DesiredObject, ctx: CheckContext, operation: string): Diagnostic[] {
  if (!selfManagedVersionBelow(ctx, '10.5')) return [];
  return [
    problem(ctx, obj, [], {
      code: 'version/collaboration',
      message: `${operation} exists from 10.5; the portal is ${ctx.portal.version}.`,
      value: ctx.portal.version,
      expected: 'portal.version 10.5 or later',
    }),
  ];
}
