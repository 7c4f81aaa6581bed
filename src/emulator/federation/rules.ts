/** federation: the portal's rules (checks that refuse a request before anything changes). */
import { groupNotFound } from '../groups/store.js';
import type { EmulatorState } from '../state/model.js';
import { badRequest, invalidJsonShape, isList, parseJson } from '../shared/params.js';
import { findBy } from '../state/store.js';

export function checkUrl(name: string, text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw badRequest(`Invalid URL for '${name}': '${text}'.`, [`'${name}' must be an http or https URL.`]);
  }
  return text;
}

export function checkCertificate(text: string): string {
  const lines = text.split(/\r?\n/).map((line) => line.trim());
  const begin = lines.indexOf('-----BEGIN CERTIFICATE-----');
  const end = lines.indexOf('-----END CERTIFICATE-----');
  if (begin < 0 || end <= begin + 1) {
    throw badRequest("Invalid 'certificate'.", [
      'The certificate must be Base64 text between a -----BEGIN CERTIFICATE----- line and an -----END CERTIFICATE----- line.',
    ]);
  }
  return text;
}

/** Comma-separated ids or a JSON array of ids; each must be an existing group. */
export function parseGroups(state: EmulatorState, text: string): string[] {
  const trimmed = text.trim();
  let ids: string[];
  if (trimmed.startsWith('[')) {
    const parsed = parseJson('groups', trimmed);
    if (!isList(parsed)) throw invalidJsonShape('groups', 'a JSON array of group ids');
    ids = parsed.map((id) => {
      if (typeof id !== 'string') throw invalidJsonShape('groups', 'a JSON array of group ids');
      return id;
    });
  } else {
    ids = trimmed.split(',');
  }
  ids = ids.map((id) => id.trim()).filter((id) => id !== '');
  for (const id of ids) {
    if (!findBy(state.groups, 'id', id)) throw groupNotFound(id);
  }
  return [...new Set(ids)];
}
