/** Matching a REST path to a route pattern (`/portals/:portalId/roles/:roleId`). */
import type { Route } from '../routes/types.js';

export interface CompiledRoute {
  route: Route;
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
  return routes.map((route) => ({ route, segments: splitPath(route.pattern) }));
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
      return part === actual;
    });
    if (matches) return { route, pathParams };
  }
  return undefined;
}
