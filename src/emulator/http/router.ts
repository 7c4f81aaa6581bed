/**
 * Matching a REST path to a route pattern (`/portals/:portalId/roles/:roleId`). The fixed
 * segments (resource and operation names) match without regard to case, as on the portal:
 * `portals/self/removeresource` is `removeResource` (issue 20 reports real portals accepting it);
 * `:name` segments (ids, user names) keep their case.
 */
import type { Route } from '../shared/types.js';

export interface CompiledRoute {
  route: Route;
  /** Fixed segments lower-cased; `:name` segments as written. */
  segments: string[];
}

export interface RouteMatch {
  route: Route;
  pathParams: Record<string, string>;
}

function splitPath(path: string): string[] {
  return path.split('/').filter((segment) => segment !== '');
}

export function compileRoutes(routes: readonly Route[]): CompiledRoute[] {
  return routes.map((route) => ({ route, segments: splitPath(route.pattern).map((part) => (part.startsWith(':') ? part : part.toLowerCase())) }));
}

export function matchRoute(routes: readonly CompiledRoute[], restPath: string): RouteMatch | undefined {
  let segments: string[];
  try {
    segments = splitPath(restPath).map((segment) => decodeURIComponent(segment));
  } catch {
    return undefined; // malformed percent-encoding: no route can match
  }
  for (const { route, segments: pattern } of routes) {
    if (pattern.length !== segments.length) continue;
    const pathParams: Record<string, string> = {};
    const matches = pattern.every((part, index) => {
      const actual = segments[index] ?? '';
      if (part.startsWith(':')) {
        pathParams[part.slice(1)] = actual;
        return actual !== '';
      }
      return part === actual.toLowerCase();
    });
    if (matches) return { route, pathParams };
  }
  return undefined;
}
