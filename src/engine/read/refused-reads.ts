/**
 * Reads the portal refused for want of a privilege (403 GWM_0003), said together. Apart from
 * read-live.ts, which loads the readers, so that the CLI's error reporting, loaded by every
 * command, does not load them too.
 */
import type { ApiError } from '../../api/errors.js';
import { formatLocation, type Diagnostic } from '../../core/diagnostics.js';
import { PortalctlError } from '../../core/errors.js';
import { counted } from '../../core/words.js';

/** A read the portal refused for want of a privilege, and the object it was for. */
export interface RefusedRead {
  address: string;
  location: Diagnostic['location'];
  error: ApiError;
}

/** Refused requests listed by name; the rest are counted. */
const REFUSALS_LISTED = 20;

/**
 * The portal refused several reads (403 GWM_0003): each is said at once, with the objects it was
 * for, so that the privileges are granted in one go rather than one failed run at a time.
 */
export class ReadsRefusedError extends PortalctlError {
  constructor(readonly refused: readonly RefusedRead[]) {
    super(refusalsText(refused));
  }
}

/** One refused request in a line: `GET /path: the portal's details` (its message when it gives none). */
export function refusalText(error: ApiError): string {
  const reason = error.details.filter((detail) => detail.trim() !== '').join('; ') || error.apiMessage;
  return `${error.method} ${error.path}: ${reason}`;
}

function refusalsText(refused: readonly RefusedRead[]): string {
  const byRequest = new Map<string, RefusedRead[]>();
  for (const read of refused) {
    const request = `${read.error.method} ${read.error.path}`;
    const reads = byRequest.get(request);
    if (reads) reads.push(read);
    else byRequest.set(request, [read]);
  }
  const lines = [...byRequest.values()].slice(0, REFUSALS_LISTED).map((reads) => {
    const [first] = reads as [RefusedRead, ...RefusedRead[]];
    const where = first.location ? `${formatLocation(first.location)}: ` : '';
    const objects = reads.length > 1 ? `${first.address} and ${counted(reads.length - 1, 'other object')}` : first.address;
    return `  ${where}${objects}: ${refusalText(first.error)}`;
  });
  const more = byRequest.size > REFUSALS_LISTED ? [`  and ${counted(byRequest.size - REFUSALS_LISTED, 'other request')}`] : [];
  return [
    `The portal refused ${byRequest.size} of the reads the configuration needs: the account behind the credentials lacks a privilege for each (code 403, GWM_0003; not retried).`,
    ...lines,
    ...more,
    'Use a default administrator account, or grant the privileges to its role.',
  ].join('\n');
}
