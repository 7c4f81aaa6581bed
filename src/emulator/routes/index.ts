/** Every route of the emulator's REST API, by area. The server matches them by pattern. */
import { collaborationRoutes } from './collaborations.js';
import { contentRoutes } from './content.js';
import { federationRoutes } from './federation.js';
import { groupRoutes } from './groups.js';
import { organizationRoutes } from './organization.js';
import { roleRoutes } from './roles.js';
import type { Route } from './types.js';
import { userRoutes } from './users.js';

export { applyAutomaticTransitions } from './content.js';

export const routes: Route[] = [
  ...groupRoutes,
  ...organizationRoutes,
  ...contentRoutes,
  ...userRoutes,
  ...federationRoutes,
  ...roleRoutes,
  ...collaborationRoutes,
];
