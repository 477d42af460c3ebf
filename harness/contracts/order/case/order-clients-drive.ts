/**
 * An order scenario of many clients: each on a connection of its own, every one connected before any
 * sends, then all started together. Where the scenario holds orders at a point the design declares, every
 * client stops there until all have reached it (or ended before it), then all go on: a barrier on observed
 * state, never a sleep. Each call is recorded with its times for the history check.
 */
import pg from 'pg';
import type {
  OrderDesign,
  OrderPausePoint,
  OrderRequest,
  OrderSessionContext,
} from '../../../../strategies/order/contract.ts';
import { sqlstateOf } from '../../../../strategies/support/sqlstate.ts';
import { type CaseConnection, sessionOptions } from '../../../driver/case-connection.ts';
import { oneLine } from '../../../errors.ts';
import { harnessNow } from '../../../history/recorder.ts';
import { checkOrderAnswer } from '../designs/order-module.ts';
import type { OrderClientsScenario } from '../order-scenario.ts';
import type { OrderAnswered } from './order-answered.ts';
import type { OrderDriven } from './order-spec-drive.ts';

/** Resolves once `count` sessions have each arrived once. */
function barrier(count: number) {
  let arrived = 0;
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const arrive = () => {
    arrived += 1;
    if (arrived >= count) open();
  };
  if (count === 0) open();
  return { arrive, opened };
}

async function orderOnce(
  client: pg.Client,
  design: OrderDesign,
  request: OrderRequest,
  session: string,
  hold: { point: OrderPausePoint | undefined; arrive(): void; opened: Promise<void> },
): Promise<OrderAnswered> {
  let arrived = false;
  const arrive = () => {
    if (!arrived) hold.arrive();
    arrived = true;
  };
  const ctx: OrderSessionContext = {
    db: client,
    pause: async (point) => {
      if (point !== hold.point || arrived) return;
      arrive();
      await hold.opened;
    },
  };
  const call = { op: 'order' as const, request };
  const invokedAt = harnessNow();
  try {
    const checked = checkOrderAnswer(await design.order(ctx, request));
    if ('problem' in checked) throw new Error(checked.problem);
    const answer = checked.answer;
    return {
      call,
      session,
      invokedAt,
      completedAt: harnessNow(),
      ending: { kind: 'ok', answer },
      outcome: answer.outcome,
    };
  } catch (error: unknown) {
    const sqlstate = sqlstateOf(error);
    const message = oneLine(error);
    const why = [sqlstate, message].filter(Boolean).join(' ');
    return {
      call,
      session,
      invokedAt,
      completedAt: null,
      ending: { kind: 'unknown', why },
      outcome: 'ERROR',
      sqlstate,
      error: message,
    };
  } finally {
    arrive();
  }
}

export async function driveOrderClients(
  connection: CaseConnection,
  design: OrderDesign,
  scenario: OrderClientsScenario,
  holdAt: OrderPausePoint | undefined,
): Promise<OrderDriven> {
  const clients = scenario.clients.map(
    () =>
      new pg.Client({ connectionString: connection.connectionString, options: sessionOptions(connection) }),
  );
  for (const c of clients) c.on('error', () => undefined);
  try {
    await Promise.all(clients.map((c) => c.connect()));
    const gate = barrier(holdAt ? clients.length : 0);
    const hold = { point: holdAt, ...gate };
    const answered = await Promise.all(
      scenario.clients.map((request, i) =>
        orderOnce(clients[i] as pg.Client, design, request, `client-${i + 1}`, hold),
      ),
    );
    return {
      answered,
      keys: scenario.clients.map((r) => r.requestKey),
      listed: true,
      answers: {},
      notExercised: [],
    };
  } finally {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  }
}
