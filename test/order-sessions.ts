/**
 * Order designs driven directly, session by session, as the order tests need before the harness runs the
 * contract's cases: a fresh schema with a design's tables, sessions on connections of their own whose
 * pause points a test holds (or kills the session at), and a wait on pg_blocking_pids — observed state,
 * never a timer — for "this session now waits on that one".
 */
import pg from 'pg';
import { afterEach } from 'vitest';
import { sessionOptions } from '../harness/driver/case-connection.ts';
import type { StockLine } from '../strategies/contract.ts';
import type {
  OrderDesign,
  OrderPausePoint,
  OrderRequest,
  OrderSessionContext,
} from '../strategies/order/contract.ts';
import { sqlstateOf } from '../strategies/support/sqlstate.ts';
import type { useRunDatabase } from './db-fixture.ts';

type Database = ReturnType<typeof useRunDatabase>;

/** What a test reads of one order call: its outcome, `ERROR <sqlstate>`, or KILLED; SOLD_OUT's sku after it. */
export type Told = string;

export interface OrderSession {
  pid: number;
  /** Retries the design reported (ctx.retried), by reason. */
  retried: string[];
  order(request: OrderRequest): Promise<Told>;
  /** Resolves when the order is held at the point the session was opened with. */
  reached: Promise<void>;
  /** Lets the held order go on. */
  letGo(): void;
}

class Killed extends Error {}

function told(answer: { outcome: string; sku?: string }): Told {
  return answer.outcome === 'SOLD_OUT' ? `SOLD_OUT ${answer.sku ?? '(no sku)'}` : answer.outcome;
}

export function orderSessions({ db, admin }: Database) {
  const opened: pg.Client[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((c) => c.end().catch(() => undefined)));
  });

  async function freshSchema(design: OrderDesign, label: string, stock: StockLine[]): Promise<string> {
    const schema = await db().createCaseSchema(label);
    await admin().query(`SET search_path TO ${schema}`);
    await design.setup(admin(), stock);
    return schema;
  }

  /**
   * A session of `design` on its own connection. `hold`: its first pass of that point waits for letGo();
   * `kill`: its first pass of that point terminates its own backend and ends the call (a process that
   * died there: nothing after the point is ever sent).
   */
  async function session(
    schema: string,
    design: OrderDesign,
    options: { hold?: OrderPausePoint; kill?: OrderPausePoint; settings?: Record<string, string> } = {},
  ): Promise<OrderSession> {
    const client = new pg.Client({
      connectionString: db().connectionString,
      options: sessionOptions({ schema, settings: options.settings }),
    });
    client.on('error', () => undefined);
    opened.push(client);
    await client.connect();
    const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid ?? 0;
    let reach: () => void = () => undefined;
    let letGo: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => {
      reach = resolve;
    });
    const goOn = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    const passed = new Set<OrderPausePoint>();
    const retried: string[] = [];
    const ctx: OrderSessionContext = {
      db: client,
      retried: (reason) => retried.push(reason),
      pause: async (point) => {
        const first = !passed.has(point);
        passed.add(point);
        if (first && point === options.kill) {
          await admin().query('SELECT pg_terminate_backend($1)', [pid]);
          throw new Killed(point);
        }
        if (first && point === options.hold) {
          reach();
          await goOn;
        }
      },
    };
    const order = (r: OrderRequest) =>
      design
        .order(ctx, r)
        .then(told, (error: unknown) =>
          error instanceof Killed ? 'KILLED' : `ERROR ${sqlstateOf(error) ?? String(error)}`,
        );
    return { pid, retried, order, reached, letGo };
  }

  /** Until the database shows `pid` waiting on `blocker` (polled: the interval only sets how often). */
  async function waitUntilBlocked(pid: number, blocker: number): Promise<void> {
    for (let look = 0; look < 4000; look++) {
      const { rowCount } = await admin().query('SELECT 1 WHERE $2::int = ANY (pg_blocking_pids($1))', [
        pid,
        blocker,
      ]);
      if (rowCount) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`${pid} was never seen waiting on ${blocker}`);
  }

  return { freshSchema, session, waitUntilBlocked };
}
