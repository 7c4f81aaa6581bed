/** roles: the portal's rules (checks that refuse a request before anything changes). */
import type { EmulatorState, Role } from '../state/model.js';
import { badRequest } from '../shared/params.js';

/** A new name for `role`: not empty, and not the name of another role (case-insensitive). */
export function checkRoleName(state: EmulatorState, role: Role, name: string): string {
  if (name.trim() === '') throw badRequest("Parameter 'name' cannot be empty.", ['A role needs a name.']);
  const clash = state.roles.find((other) => other.id !== role.id && other.name.toLowerCase() === name.toLowerCase());
  if (clash) throw badRequest(`A role named '${name}' already exists.`, [`Role ${clash.id} is already named '${clash.name}'.`]);
  return name;
}
