/**
 * The reservation service's routes (docs/http-api.md): each path template, the one method it answers and
 * its handler. `dispatch` is the one way a request reaches a handler: an unknown path is a 404, another
 * method a 405, and a POST's body is read here, within MAX_BODY_BYTES, before its handler runs.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { reply } from './exchange.ts';
import { readBody } from './reserve-body.ts';
import {
  admissionCounters,
  endHold,
  type Handler,
  metricsText,
  refuse,
  reservationStatus,
  reserve,
  resetTables,
  stockLeft,
} from './service-handlers.ts';
import type { ServiceState } from './service-state.ts';

export interface Route {
  method: 'GET' | 'POST';
  /** The metrics' and the log's `route`: one value per kind of request, never a key. */
  template: string;
  handle: Handler;
}

export const ROUTES: readonly Route[] = [
  { method: 'POST', template: '/reserve', handle: reserve },
  { method: 'GET', template: '/reservations/{request_key}', handle: reservationStatus },
  { method: 'POST', template: '/confirm/{request_key}', handle: endHold('confirm') },
  { method: 'POST', template: '/release/{request_key}', handle: endHold('release') },
  { method: 'GET', template: '/stock/{sku}', handle: stockLeft },
  { method: 'POST', template: '/admin/reset', handle: resetTables },
  { method: 'GET', template: '/admission', handle: admissionCounters },
  { method: 'GET', template: '/metrics', handle: metricsText },
];

/** A template's `{name}` matches one path segment. */
const PATTERNS = ROUTES.map(
  (route) => [route, new RegExp(`^${route.template.replace(/\{[a-z_]+\}/, '([^/]+)')}$`)] as const,
);

export interface RouteMatch {
  route: Route;
  /** The path's variable part as the client encoded it; '' for a route without one. */
  segment: string;
}

export function routeOf(path: string): RouteMatch | undefined {
  for (const [route, pattern] of PATTERNS) {
    const match = pattern.exec(path);
    if (match) return { route, segment: match[1] ?? '' };
  }
  return undefined;
}

export async function dispatch(
  service: ServiceState,
  req: IncomingMessage,
  res: ServerResponse,
  found: RouteMatch | undefined,
): Promise<void> {
  if (!found) return reply(res, 404, { outcome: 'BAD_REQUEST', reason: 'unknown path' });
  const { route, segment } = found;
  if (req.method !== route.method) {
    return reply(
      res,
      405,
      { outcome: 'BAD_REQUEST', reason: `use ${route.method}` },
      { allow: route.method },
    );
  }
  let body = '';
  // Every POST's body is read within the bound, used or not (confirm, release), before its answer.
  if (route.method === 'POST') {
    const read = await readBody(req);
    if ('tooLarge' in read) {
      refuse(service, res, 'body too large', { connection: 'close' });
      req.destroy();
      return;
    }
    body = read.text;
  }
  await route.handle(service, { req, res, segment, body });
}
