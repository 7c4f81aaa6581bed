/** roles: the data side (moto's models): lookups, views of the documented shapes, and mutations. */
import { notFound } from '../errors.js';
import type { EmulatorState, Role } from '../state/model.js';
import { findBy } from '../state/store.js';

export function findRole(state: EmulatorState, roleId: string): Role {
  const role = findBy(state.roles, 'id', roleId);
  if (!role) throw notFound();
  return role;
}

/** The documented role object; `privileges` only when asked for (returnPrivileges=true on the list). */
export const roleView = (role: Role, withPrivileges = false): Record<string, unknown> => ({
  id: role.id,
  name: role.name,
  description: role.description,
  created: 0,
  modified: 0,
  ...(withPrivileges ? { privileges: [...role.privileges] } : {}),
});
