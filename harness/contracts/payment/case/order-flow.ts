/**
 * An order flow on one case schema: a reservation strategy's reserve and confirm, then a payment design's
 * pay, all under the order's key (the reservation's request key and the payment's idempotency key), one
 * user per order. A run goes from the top in process; a crash runs the steps before its own in process and
 * its step in a crash child killed -9 at the pause point (crash/crash-runner.ts, the harness's one way to
 * kill a process there). The reservation side's final read and the checks across both sides are here too.
 */
import type pg from 'pg';
import type { NodeIdentity, Outcome, ReserveRequest, StrategyRef } from '../../../../strategies/contract.ts';
import type { PaymentRequest } from '../../../../strategies/payment/contract.ts';
import { crashOrderOn, runUntilStage } from '../../../crash/crash-runner.ts';
import { caseClient } from '../../../driver/case-client.ts';
import type { CaseConnection } from '../../../driver/case-connection.ts';
import { crashStrategy, crashWorkOf, loadStrategy, readBack, TTL_MS } from '../depends-on-reservation.ts';
import type { PaymentDesignRef } from '../designs/payment-registry.ts';
import { paymentRequest } from '../spec/order-payment-payload.ts';
import { orderInvariantProblems } from '../verdict/order-invariants.ts';
import type { PaymentFinalRead } from '../verdict/payment-final-read.ts';
import type { PaymentProblem } from '../verdict/payment-invariants.ts';
import type { OrderCrashPoint, OrderFlow, OrderFlowSpec, OrderRun } from './order-flow-scenario.ts';
import { crashPayOf } from './payment-crash.ts';
import type { PaymentSessions } from './payment-sessions.ts';

export interface OrderFlowDeps {
  connection: CaseConnection;
  admin: pg.ClientBase;
  timeoutMs: number;
  spec: OrderFlowSpec;
  strategy: StrategyRef;
  payment: PaymentDesignRef;
  sessions: PaymentSessions;
}

export class OrderFlowDriver implements OrderFlow {
  readonly crashPoints: readonly OrderCrashPoint[];
  /** Every order key the case drove, for the final read. */
  readonly keys = new Set<string>();
  private client: pg.Client | undefined;
  private attempts = 0;

  constructor(private readonly deps: OrderFlowDeps) {
    const { strategy } = deps.strategy;
    // Every pause point of each step, in the flow's order: reserve's, confirm's, then pay's.
    this.crashPoints = [
      ...(strategy.pausePoints.reserve ?? []).map((point) => ({ step: 'reserve' as const, point })),
      ...(strategy.pausePoints.confirm ?? []).map((point) => ({ step: 'confirm' as const, point })),
      ...deps.payment.design.pausePoints.pay.map((point) => ({ step: 'pay' as const, point })),
    ];
  }

  async run(n: number): Promise<OrderRun> {
    const reserve = await this.reserve(n);
    if (reserve !== 'HELD' && reserve !== 'REPLAY') return { reserve };
    const confirmed = await this.confirm(n);
    if (!confirmed) return { reserve, confirmed };
    const answer = await this.deps.sessions.startPay(this.payment(n)).resume();
    return { reserve, confirmed, pay: answer.outcome };
  }

  async crash(n: number, at: OrderCrashPoint): Promise<{ stage: string; signal: string }> {
    // The steps before the killed one must have got the order there, or the kill tests nothing.
    const reserved = at.step === 'reserve' || ['HELD', 'REPLAY'].includes(await this.reserve(n));
    if (!reserved || (at.step === 'pay' && !(await this.confirm(n))))
      throw new Error(`${orderKey(n)} did not get to its ${at.step} step, to be killed there`);
    const { connection, admin, timeoutMs } = this.deps;
    if (at.step === 'pay') {
      const { moduleUrl } = this.deps.payment;
      const crash = await crashPayOf(connection, { admin, timeoutMs }, moduleUrl, this.deps.sessions);
      const { stage, signal } = await crash(this.payment(n), at.point);
      return { stage, signal };
    }
    const operation =
      at.step === 'reserve'
        ? { reserve: this.request(n), node: this.node(`crash-${n}`) }
        : { confirm: orderKey(n) };
    const { moduleUrl } = this.deps.strategy;
    const order = crashOrderOn(connection, crashStrategy(moduleUrl), crashWorkOf(operation), at.point);
    const child = await runUntilStage(order, admin, timeoutMs);
    if (!('killAndWaitGone' in child)) return { stage: 'done', signal: 'none' };
    const { signal } = await child.killAndWaitGone();
    return { stage: child.stage, signal: signal ?? 'none' };
  }

  /** The checks across both sides, over the harness's own read of every order's reservation. */
  async problems(payments: PaymentFinalRead): Promise<PaymentProblem[]> {
    const { connection, strategy, spec } = this.deps;
    const reservations = await readBack(connection, strategy.strategy, this.keys, [spec.stock.sku]);
    return orderInvariantProblems({ stock: spec.stock, reservations }, payments);
  }

  async close(): Promise<void> {
    await this.client?.end().catch(() => undefined);
  }

  private async reserve(n: number): Promise<Outcome> {
    const db = await this.session();
    const answer = await this.deps.strategy.strategy.reserve(
      { db, pause: async () => undefined, node: this.node('flow') },
      this.request(n),
    );
    return answer.outcome;
  }

  /** Confirmed by this call, or found CONFIRMED (an earlier attempt's confirm committed). */
  private async confirm(n: number): Promise<boolean> {
    const { strategy } = this.deps.strategy;
    if (!strategy.confirm) throw new Error(`${strategy.id} has no confirm`);
    const db = await this.session();
    if (await strategy.confirm({ db, pause: async () => undefined }, orderKey(n))) return true;
    return (await strategy.status(db, orderKey(n))) === 'CONFIRMED';
  }

  private request(n: number): ReserveRequest {
    this.keys.add(orderKey(n));
    const user = `user-${String(n).padStart(4, '0')}`;
    return { requestKey: orderKey(n), user, sku: this.deps.spec.stock.sku, ttlMs: TTL_MS };
  }

  /**
   * The order's payment of the payment drill's payload; every attempt proposes a payment id of its own, as a
   * new worker would.
   */
  private payment(n: number): PaymentRequest {
    this.attempts += 1;
    const key = orderKey(n);
    return { ...paymentRequest(key, `pay-${key}-${this.attempts}`), order: key };
  }

  private node(incarnation: string): NodeIdentity {
    return {
      name: 'node-1',
      index: 0,
      count: 1,
      incarnation: `${this.deps.connection.schema}-${incarnation}`,
    };
  }

  /** The flow's own connection for the reservation steps it runs in process. */
  private async session(): Promise<pg.Client> {
    if (this.client) return this.client;
    const { connection } = this.deps;
    const client = caseClient(connection, 'reservebench-order-flow');
    await client.connect();
    this.client = client;
    return client;
  }
}

/** The scenario's order flow on the case's schema, its strategy's tables made and stocked; none without. */
export async function openOrderFlow(
  spec: OrderFlowSpec | undefined,
  deps: Omit<OrderFlowDeps, 'spec' | 'strategy'>,
): Promise<OrderFlowDriver | undefined> {
  if (!spec) return undefined;
  const strategy = await loadStrategy(spec.strategy);
  await strategy.strategy.setup(deps.admin, [spec.stock]);
  return new OrderFlowDriver({ ...deps, spec, strategy });
}

/** The order's key: its reservation's request key and its payment's idempotency key. */
export function orderKey(n: number): string {
  return `order-${String(n).padStart(4, '0')}`;
}
