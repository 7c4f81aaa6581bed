/**
 * The skeleton of the config: the sections and lists that hold the kinds' declarations.
 * Kinds add properties to these containers (KindDefinition.config); the JSON Schema of the
 * whole config is composed from both (src/engine/config/schema.ts). A new kind usually only
 * adds properties to an existing container.
 */
import type { JsonSchema } from './contract.js';

export interface ContainerDefinition {
  readonly name: string;
  /** Enclosing container; none for the top-level sections. */
  readonly parent?: string;
  /** Property of the parent (or of the config's top level) that holds it. */
  readonly field: string;
  /** `object`: one entry (a section); `list`: a list of entries. */
  readonly shape: 'object' | 'list';
  /** For keyed lists: the property identifying an entry, its schema and its name in `ids`. */
  readonly key?: { readonly property: string; readonly idName: string; readonly schema: JsonSchema };
  /** Address of an entry given its key and the parent's address ('' at the top). */
  address(key: string | undefined, parentAddress: string): string;
  readonly description: string;
}

const id = (description: string): JsonSchema => ({ type: 'string', minLength: 1, description });

export const containers: readonly ContainerDefinition[] = [
  {
    name: 'organization',
    field: 'organization',
    shape: 'object',
    address: () => 'organization',
    description: 'Settings of the organization itself.',
  },
  {
    name: 'group',
    field: 'groups',
    shape: 'list',
    key: { property: 'id', idName: 'groupId', schema: id('Group id.') },
    address: (key) => `group[${key}]`,
    description: 'Groups whose settings are managed, by id.',
  },
  {
    name: 'item',
    field: 'items',
    shape: 'list',
    key: { property: 'id', idName: 'itemId', schema: id('Item id.') },
    address: (key) => `item[${key}]`,
    description: 'Content items whose settings are managed, by id.',
  },
  {
    name: 'user',
    field: 'users',
    shape: 'list',
    key: { property: 'username', idName: 'username', schema: id('Username.') },
    address: (key) => `user[${key}]`,
    description: 'Members whose settings are managed, by username.',
  },
  {
    name: 'role',
    field: 'roles',
    shape: 'list',
    key: { property: 'id', idName: 'roleId', schema: id('Custom role id.') },
    address: (key) => `role[${key}]`,
    description: 'Custom roles (E10).',
  },
  {
    name: 'federation',
    field: 'federations',
    shape: 'list',
    key: { property: 'id', idName: 'federationId', schema: id('Federation id (the `id` of `portals/self/idp/federation`).') },
    address: (key) => `federation[${key}]`,
    description: 'SAML federations of identity providers (E6). An organization has one.',
  },
  {
    name: 'collaboration',
    field: 'collaborations',
    shape: 'list',
    key: { property: 'id', idName: 'collaborationId', schema: id('Distributed collaboration id.') },
    address: (key) => `collaboration[${key}]`,
    description: 'Distributed collaborations hosted by this organization.',
  },
  {
    name: 'workspace',
    parent: 'collaboration',
    field: 'workspaces',
    shape: 'list',
    key: { property: 'id', idName: 'workspaceId', schema: id('Workspace id.') },
    address: (key, parent) => `${parent}.workspace[${key}]`,
    description: "The collaboration's workspaces.",
  },
  {
    name: 'participant',
    parent: 'collaboration',
    field: 'participants',
    shape: 'list',
    address: (_key, parent) => parent,
    description:
      'Participants of the collaboration: `{portalId, absent: true}` removes a participant (E11), ' +
      '`{guestPortalUrl, workspaces, expirationHours}` invites a portal (E13).',
  },
];
