/**
 * Every route of the emulator's REST API, by area. Each area (src/emulator/<area>/) is laid out
 * like moto's models / responses / urls: `store.ts` (lookups, documented views, mutations),
 * `rules.ts` (checks that refuse a request before anything changes) and `routes.ts` (request
 * parsing and the route table). The server matches routes by pattern.
 */
import { collaborationRoutes } from './collaborations/routes.js';
import { contentRoutes } from './content/routes.js';
import { federationRoutes } from './federation/routes.js';
import { groupRoutes } from './groups/routes.js';
import { organizationRoutes } from './organization/routes.js';
import { roleRoutes } from './roles/routes.js';
import type { Route } from './shared/types.js';
import { userRoutes } from './users/routes.js';

export { applyAutomaticTransitions } from './content/rules.js';

export const routes: Route[] = [
  ...groupRoutes,
  ...organizationRoutes,
  ...contentRoutes,
  ...userRoutes,
  ...federationRoutes,
  ...roleRoutes,
  ...collaborationRoutes,
];
