/** roles: the portal's rules (checks that refuse a request before anything changes). */
import type { EmulatorState, Role } from '../state/model.js';
import { badRequest } from '../shared/params.js';

/**
 * Names no custom role may take, and the pre-built custom roles among them, which cannot be
 * updated (the public documentation: Portal for ArcGIS "Configure member roles" and the REST
 * API's role resource). Lower-cased: names are compared ignoring case.
 */
const RESERVED_NAMES = new Set(['administrator', 'publisher', 'user', 'data editor', 'viewer']);
const PRE_BUILT_NAMES = new Set(['data editor', 'viewer']);
const NAME_LIMIT = 128;
const DESCRIPTION_LIMIT = 250;

/** The pre-built Viewer and Data Editor roles are not updated. */
export function checkRoleUpdatable(role: Role): void {
  if (PRE_BUILT_NAMES.has(role.name.toLowerCase())) throw badRequest(`The pre-built role '${role.name}' cannot be updated.`);
}

/** A new name for `role`: not empty, at most 128 characters, no default role's, and not the name of another role (case-insensitive). */
export function checkRoleName(state: EmulatorState, role: Role, name: string): string {
  if (name.trim() === '') throw badRequest("Parameter 'name' cannot be empty.", ['A role needs a name.']);
  if (name.length > NAME_LIMIT) throw badRequest(`Role name exceeds the maximum length of ${NAME_LIMIT} characters.`);
  if (RESERVED_NAMES.has(name.toLowerCase())) throw badRequest(`'${name}' cannot be used as the name of a custom role.`);
  const clash = state.roles.find((other) => other.id !== role.id && other.name.toLowerCase() === name.toLowerCase());
  if (clash) throw badRequest(`A role named '${name}' already exists.`, [`Role ${clash.id} is already named '${clash.name}'.`]);
  return name;
}

/** A role's description: at most 250 characters. */
export function checkRoleDescription(description: string): string {
  if (description.length > DESCRIPTION_LIMIT) throw badRequest(`Role description exceeds the maximum length of ${DESCRIPTION_LIMIT} characters.`);
  return description;
}
