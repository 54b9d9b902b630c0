/**
 * Matches a request against the route table. Literal segments win over parameters, so
 * `POST /plans/{id}/transactions/import` is never read as a transaction id.
 */
import type { OperationId } from '@plans-gateway/rest-contract';
import { ROUTES, type RouteDefinition } from './routes.js';

export interface RouteMatch {
  operationId: OperationId;
  /** Path parameters, percent-decoded. */
  params: Record<string, string>;
}

type Segment = { literal: string } | { param: string };

interface CompiledRoute {
  method: string;
  operationId: OperationId;
  segments: Segment[];
  /** Number of literal segments; more literal routes are tried first. */
  specificity: number;
}

export interface Router {
  match(method: string, path: string): RouteMatch | null;
}

function compile(route: RouteDefinition): CompiledRoute {
  const segments = route.path
    .split('/')
    .filter(Boolean)
    .map(
      (part): Segment => (part.startsWith('{') ? { param: part.slice(1, -1) } : { literal: part }),
    );
  return {
    method: route.method,
    operationId: route.operationId,
    segments,
    specificity: segments.filter((s) => 'literal' in s).length,
  };
}

export function createRouter(routes: readonly RouteDefinition[] = ROUTES): Router {
  const compiled = routes.map(compile).sort((a, b) => b.specificity - a.specificity);
  return {
    match(method, path) {
      const parts = path.split('/').filter(Boolean);
      for (const route of compiled) {
        if (route.method !== method || route.segments.length !== parts.length) continue;
        const params: Record<string, string> = {};
        let matched = true;
        for (let i = 0; i < parts.length && matched; i++) {
          const segment = route.segments[i] as Segment;
          const part = parts[i] as string;
          if ('literal' in segment) {
            matched = segment.literal === part;
          } else {
            try {
              params[segment.param] = decodeURIComponent(part);
            } catch {
              params[segment.param] = part;
            }
          }
        }
        if (matched) return { operationId: route.operationId, params };
      }
      return null;
    },
  };
}
