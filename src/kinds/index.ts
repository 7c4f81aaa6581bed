/** The registry of kinds: one line per kind. */
import type { Kind } from './toolkit/contract.js';
import { collaborationInvitation } from './collaboration-invitation.js';
import { collaborationParticipant } from './collaboration-participant.js';
import { federation } from './federation.js';
import { groupCategorySchema } from './group-category-schema.js';
import { itemStatus } from './item-status.js';
import { organizationCategorySchema } from './organization-category-schema.js';
import { organizationMemberCategorySchema } from './organization-member-category-schema.js';
import { organizationResource } from './organization-resource.js';
import { organizationSecurityPolicy } from './organization-security-policy.js';
import { role } from './role.js';
import { userLevel } from './user-level.js';
import { userTask } from './user-task.js';
import { workspace } from './workspace.js';
import { workspacePortalGroupLink } from './workspace-portal-group-link.js';

export { containers, type ContainerDefinition } from './toolkit/containers.js';

export const kinds: readonly Kind[] = [
  groupCategorySchema,
  organizationCategorySchema,
  itemStatus,
  userLevel,
  organizationMemberCategorySchema,
  federation,
  userTask,
  organizationSecurityPolicy,
  workspace,
  role,
  collaborationParticipant,
  organizationResource,
  collaborationInvitation,
  workspacePortalGroupLink,
];
