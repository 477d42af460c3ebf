/**
 * What a load balancer meets: the service's one request listener, there from the moment the port is bound.
 * While the service starts (its database, tables and pools not yet there) and while it drains (SIGTERM:
 * nothing more is admitted, what was admitted finishes) every request is answered at once with 503 and
 * `Retry-After: 1` (`outcome=STARTING` or `DRAINING`; nothing was written, so the client may send it again,
 * to this instance or another), never left open. `GET /health/live` answers 200 whenever the process
 * answers at all; `GET /health/ready` answers 200 only while requests are served, 503 otherwise — what a
 * balancer's health check asks before it sends traffic. While draining, `/admission` and `/metrics` are
 * still served (read from memory), so the drain can be watched.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { reply } from './exchange.ts';

export type FrontState = 'starting' | 'ready' | 'draining';

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** Served while draining too: both read memory only. */
const WHILE_DRAINING = new Set(['/admission', '/metrics']);

export class FrontDoor {
  private state: FrontState = 'starting';
  private handler: RequestHandler | undefined;

  constructor(readonly server: Server) {
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.route(req, res));
  }

  get current(): FrontState {
    return this.state;
  }

  /** From now on requests reach the service. */
  open(handler: RequestHandler): void {
    this.handler = handler;
    this.state = 'ready';
  }

  /** From now on every new request (but /admission, /metrics and the health checks) is answered 503. */
  drain(): void {
    this.state = 'draining';
  }

  private route(req: IncomingMessage, res: ServerResponse) {
    const path = new URL(req.url ?? '/', 'http://service').pathname;
    const state = this.state;
    if (path === '/health/live') return reply(res, 200, { status: 'LIVE', state: state.toUpperCase() });
    if (path === '/health/ready') {
      if (state === 'ready') return reply(res, 200, { status: 'READY' });
      return reply(res, 503, { status: state.toUpperCase() }, { 'retry-after': '1' });
    }
    const handler = this.handler;
    if (handler && (state === 'ready' || WHILE_DRAINING.has(path))) return handler(req, res);
    // The body is not read: the connection closes after the answer.
    reply(
      res,
      503,
      { outcome: state === 'starting' ? 'STARTING' : 'DRAINING' },
      { 'retry-after': '1', connection: 'close' },
    );
  }
}
