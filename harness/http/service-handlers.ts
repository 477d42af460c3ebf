/**
 * The reservation service's answer to each route (docs/http-api.md), once service-routes.ts has matched the
 * path and the method and read a POST's body. A request that touches the database passes its lane's gate
 * first, so a full gate's 503 is answered before the database is touched.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as work } from 'node:timers/promises';
import type pg from 'pg';
import type { Outcome, ReservationStatus, SessionContext } from '../../strategies/contract.ts';
import { STATUSES } from '../../strategies/contract.ts';
import { oneLine } from '../errors.ts';
import { isRejected } from '../gate/gate.ts';
import { checkAnswer } from '../registry/strategy-module.ts';
import { exchange, reply, send } from './exchange.ts';
import { answerLostConnection, connectionLost } from './lost-connection.ts';
import { checkReserveBody, isRequestKey } from './reserve-body.ts';
import { checkResetBody } from './reset-body.ts';
import type { Lane, ServiceState } from './service-state.ts';

/** One request, as its route's handler gets it. */
export interface Call {
  req: IncomingMessage;
  res: ServerResponse;
  /** The path's variable part (`{request_key}`, `{sku}`) as the client encoded it; '' for a route without. */
  segment: string;
  /** A POST's body, read within its bound; '' for a GET. */
  body: string;
}

export type Handler = (service: ServiceState, call: Call) => Promise<void> | void;

/** The status code the API answers each reserve outcome with (docs/http-api.md); a target is held to it. */
const NO_SUCH_SKU = 'the service sells no such sku';

export const STATUS_OF: Readonly<Record<Outcome, number>> = {
  HELD: 201,
  REPLAY: 200,
  SOLD_OUT: 409,
  USER_LIMIT: 409,
  KEY_REUSED: 422,
  BAD_REQUEST: 400,
  // Nothing was written: the client may try again with the same key.
  GAVE_UP: 503,
};

export function refuse(
  service: ServiceState,
  res: ServerResponse,
  reason: string,
  headers: Record<string, string> = {},
): void {
  service.tally.badRequests += 1;
  reply(res, 400, { outcome: 'BAD_REQUEST', reason }, headers);
}

/** A strategy call that failed, or answered outside the contract: 500 with the reason on one line. */
export function failed(service: ServiceState, res: ServerResponse, error: unknown): void {
  service.tally.databaseErrors += 1;
  reply(res, 500, { outcome: 'ERROR', reason: oneLine(error).replace(/\s+/g, ' ') });
}

/** A status a strategy's `status` answered, checked: anything outside the contract is a 500 naming it. */
const KNOWN_STATUS = new Set<string>([...STATUSES, 'NOT_FOUND']);
function checkedStatus(found: unknown): ReservationStatus | 'NOT_FOUND' {
  if (typeof found !== 'string' || !KNOWN_STATUS.has(found)) {
    throw new Error(`status answered ${JSON.stringify(found) ?? String(found)}, not a status`);
  }
  return found as ReservationStatus | 'NOT_FOUND';
}

/** `/reservations/{key}` as the client encoded it (`order%3A17` for `order:17`); undefined when malformed. */
function decodedKey(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

const session = (service: ServiceState, client: pg.PoolClient): SessionContext => ({
  db: client,
  pause: async () => undefined,
  pausesAt: () => false,
  node: service.node,
});

/**
 * Runs `work` on one of the lane's connections once its gate admits it; 503 before the database if not,
 * and a 503 of lost-connection.ts when its connection was cut or could not be had.
 */
async function admitted(
  service: ServiceState,
  lane: Lane,
  res: ServerResponse,
  work: (client: pg.PoolClient) => Promise<void>,
): Promise<void> {
  const arrived = performance.now();
  const pass = await lane.gate.enter();
  const { ticket } = pass;
  const waited = performance.now() - arrived;
  const x = exchange(res);
  x.waitMs = waited;
  x.ticket = ticket;
  service.metrics.admission(lane.name, ticket, waited / 1000);
  if (isRejected(ticket)) {
    reply(res, 503, { outcome: ticket }, { 'retry-after': '1' });
    return;
  }
  let client: pg.PoolClient | undefined;
  try {
    client = await lane.pool.connect();
    await work(client);
    client.release();
  } catch (error: unknown) {
    if (!client) return answerLostConnection(service, lane, res, error, false);
    // Cut, or left inside an aborted transaction: dropped, never handed to the next request.
    client.release(true);
    if (connectionLost(client, error)) return answerLostConnection(service, lane, res, error, true);
    failed(service, res, error);
  } finally {
    await pass.leave();
  }
}

export const reserve: Handler = async (service, { req, res, body }) => {
  const checked = checkReserveBody(body, req.headers['content-type'] ?? '');
  if (!checked.ok) return refuse(service, res, checked.reason);
  Object.assign(exchange(res), { requestKey: checked.request.requestKey, sku: checked.request.sku });
  // Known before any gate or database call: a sku the service does not sell can never be held.
  if (service.skus && !service.skus.includes(checked.request.sku)) {
    return refuse(service, res, NO_SUCH_SKU);
  }
  await admitted(service, service.reservations, res, async (client) => {
    if (service.workMs > 0) await work(service.workMs);
    const answer = checkAnswer(await service.strategy.reserve(session(service, client), checked.request));
    if ('problem' in answer) throw new Error(answer.problem);
    const { outcome, status } = answer.answer;
    reply(res, STATUS_OF[outcome], { outcome, ...(status ? { status } : {}) });
  });
};

/**
 * POST /confirm/{key} and /release/{key}: the strategy's operation behind the writes' gate. It moves only
 * a HELD row and says whether this call moved it; if not, the status read after it tells a replay (the
 * hold already has the status asked for) from a conflict (it ended otherwise) and from an unknown key.
 * Their body, read like any POST's, is not used.
 */
export function endHold(verb: 'confirm' | 'release'): Handler {
  const ended: ReservationStatus = verb === 'confirm' ? 'CONFIRMED' : 'RELEASED';
  return async (service, { res, segment }) => {
    const { strategy } = service;
    const key = decodedKey(segment);
    if (key === undefined || !isRequestKey(key)) return refuse(service, res, 'malformed request_key');
    exchange(res).requestKey = key;
    if (typeof strategy[verb] !== 'function') {
      return reply(res, 501, {
        outcome: 'NOT_IMPLEMENTED',
        reason: `strategy ${strategy.id} has no ${verb}`,
      });
    }
    await admitted(service, service.reservations, res, async (client) => {
      if (service.workMs > 0) await work(service.workMs);
      const moved: unknown = await strategy[verb]?.(session(service, client), key);
      if (typeof moved !== 'boolean') {
        throw new Error(`${verb} answered ${JSON.stringify(moved) ?? String(moved)}, not true or false`);
      }
      if (moved) return reply(res, 200, { outcome: ended, status: ended });
      const now = checkedStatus(await strategy.status(client, key));
      if (now === 'NOT_FOUND') return reply(res, 404, { outcome: 'NOT_FOUND', status: now });
      const replay = now === ended;
      reply(res, replay ? 200 : 409, { outcome: replay ? 'REPLAY' : 'CONFLICT', status: now });
    });
  };
}

export const reservationStatus: Handler = async (service, { res, segment }) => {
  const key = decodedKey(segment);
  if (key === undefined || !isRequestKey(key)) return refuse(service, res, 'malformed request_key');
  exchange(res).requestKey = key;
  await admitted(service, service.lookups, res, async (client) => {
    const status = checkedStatus(await service.strategy.status(client, key));
    reply(res, status === 'NOT_FOUND' ? 404 : 200, { status });
  });
};

export const stockLeft: Handler = async (service, { res, segment }) => {
  const sku = decodedKey(segment);
  if (sku === undefined || !isRequestKey(sku)) return refuse(service, res, 'malformed sku');
  exchange(res).sku = sku;
  if (service.skus && !service.skus.includes(sku)) {
    return reply(res, 404, { outcome: 'NOT_FOUND', sku, reason: NO_SUCH_SKU });
  }
  await admitted(service, service.lookups, res, async (client) => {
    const remaining: unknown = await service.strategy.remaining(client, sku);
    if (!Number.isSafeInteger(remaining)) {
      throw new Error(`remaining answered ${JSON.stringify(remaining) ?? String(remaining)}`);
    }
    reply(res, 200, { sku, remaining: String(remaining) });
  });
};

/**
 * POST /admin/reset: fresh tables with the stock given (a test endpoint, off unless `serve --allow-reset`;
 * see docs/http-api.md). Off: 403 whatever the body, so a client can ask whether it is on with a body
 * that is not a stock list (on: 400, nothing changed). It passes no gate: send it while no other request
 * is in flight.
 */
export const resetTables: Handler = async (service, { res, body }) => {
  if (!service.reset) {
    return reply(res, 403, {
      outcome: 'FORBIDDEN',
      reason: 'reset is off: start serve with --allow-reset',
    });
  }
  const checked = checkResetBody(body);
  if (!checked.ok) return refuse(service, res, checked.reason);
  try {
    service.node = await service.reset(checked.stock);
    service.skus = checked.stock.map((line) => line.sku);
  } catch (error: unknown) {
    return failed(service, res, error);
  }
  reply(res, 200, {
    outcome: 'RESET',
    stock: checked.stock.map((line) => `${line.sku}:${line.total}`).join(','),
  });
};

export const admissionCounters: Handler = (service, { res }) =>
  send(res, 200, { 'content-type': 'application/json' }, `${JSON.stringify(service.counters())}\n`);

/** In memory, like /admission: no gate, so it answers while the gates are full. */
export const metricsText: Handler = async (service, { res }) =>
  send(res, 200, { 'content-type': service.metrics.contentType }, await service.metrics.text());
