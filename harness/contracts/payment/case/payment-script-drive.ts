/**
 * A scripted payment scenario (one that is not a spec): its `run(ctx)` on the case's sessions
 * (payment-sessions.ts), with the faults a script may cause — a pay killed -9 in a crash child, the
 * database crashed and restarted — and, for an order flow, the reservation strategy beside the design.
 * Every answer is recorded as it comes in, with its times, and every mid-case read for the history check.
 */
import type { PaymentDesign } from '../../../../strategies/payment/contract.ts';
import type { ClusterRunDatabase } from '../../../cluster/cluster-database.ts';
import { clusterFaults } from '../../../cluster/cluster-faults.ts';
import type { RunDatabase } from '../../../database/database.ts';
import type { CaseConnection } from '../../../driver/case-connection.ts';
import { harnessNow } from '../../../history/recorder.ts';
import type { Observed } from '../../../verdict/case-result.ts';
import type { PaymentDesignRef } from '../designs/payment-registry.ts';
import type { PaymentRead } from '../verdict/payment-history-check.ts';
import { countsOf } from '../verdict/payment-invariants.ts';
import { crashPaymentDatabase } from './crash-payment-database.ts';
import { openOrderFlow } from './order-flow.ts';
import { crashPayOf } from './payment-crash.ts';
import type { PaymentScriptContext, PaymentScriptScenario } from './payment-scenario.ts';
import { PaymentSessions } from './payment-sessions.ts';
import type { PaymentDriven } from './payment-spec-drive.ts';

/** What a script's case runs on: the run's database (for its admin connection and a crash), and its bound. */
export interface ScriptCase {
  db: RunDatabase;
  ref: PaymentDesignRef;
  design: PaymentDesign;
  timeoutMs: number;
}

export async function drivePaymentScript(
  connection: CaseConnection,
  scenario: PaymentScriptScenario,
  { db, ref, design, timeoutMs }: ScriptCase,
): Promise<PaymentDriven> {
  // The admin connection of the moment: a database crash and restart replaces it.
  const sessions = new PaymentSessions(connection, () => db.admin, design, timeoutMs);
  const control = { admin: db.admin, timeoutMs };
  const orders = await openOrderFlow(scenario.orderFlow, { connection, ...control, payment: ref, sessions });
  const faults = {
    crashPay: crashPayOf(connection, control, ref.moduleUrl, sessions),
    orders,
    ...clusterOf(db, connection, sessions, timeoutMs),
  };
  const observations: Record<string, Observed> = {};
  const reads: PaymentRead[] = [];
  try {
    const crash = () => crashPaymentDatabase(db, connection.schema, sessions);
    await scenario.run(scriptContext(design, scenario, sessions, { observations, reads, crash, faults }));
  } finally {
    await Promise.all([sessions.close(), orders?.close()]);
  }
  return {
    answers: sessions.recorded(),
    reads,
    keys: [...(orders?.keys ?? [])],
    orderProblems: async (read) => (await orders?.problems(read)) ?? [],
    listed: true,
    notExercised: [],
    observe: () => observations,
  };
}

/**
 * A cluster case's faults (cluster/cluster-faults.ts): a pay in flight across a fault that moves the
 * primary may lose its answer (INDETERMINATE), as across a database crash.
 */
function clusterOf(
  db: RunDatabase,
  connection: CaseConnection,
  sessions: PaymentSessions,
  timeoutMs: number,
): Pick<PaymentScriptContext, 'cluster'> {
  if (!('cluster' in db)) return {};
  const record = {
    schema: connection.schema,
    timeoutMs,
    fault: (_label: string, act: () => Promise<void>) => act(),
    moving: () => sessions.databaseCrashing(),
  };
  return { cluster: clusterFaults(db as ClusterRunDatabase, record) };
}

function scriptContext(
  design: PaymentDesign,
  scenario: PaymentScriptScenario,
  sessions: PaymentSessions,
  seen: {
    observations: Record<string, Observed>;
    reads: PaymentRead[];
    crash: () => Promise<void>;
    faults: Pick<PaymentScriptContext, 'crashPay' | 'orders' | 'cluster'>;
  },
): PaymentScriptContext {
  const holdAt = scenario.holdAt?.find((p) => design.pausePoints.pay.includes(p));
  return {
    design,
    holdAt,
    pay: (request) => sessions.startPay(request).resume(),
    startPay: (request, at) => sessions.startPay(request, at),
    payTogether: (requests, at) => sessions.payTogether(requests, at),
    payWithLostCommitAnswer: (request) => sessions.payWithLostCommitAnswer(request),
    crashDatabase: async () => {
      if (!scenario.crashesDatabase) throw new Error(`${scenario.id} crashes the database undeclared`);
      await seen.crash();
    },
    ...seen.faults,
    countsFor: async (key) => {
      const { client } = await sessions.connect();
      const invokedAt = harnessNow();
      const payments = await design.paymentStatus(client, key);
      const at = { invokedAt, completedAt: harnessNow() };
      seen.reads.push({ idempotencyKey: key, payments, session: 'counts', ...at });
      return countsOf(new Map([[key, { payments, outbox: await design.outboxFor(client, key) }]]));
    },
    observe: (name, value) => {
      seen.observations[name] = value;
    },
  };
}
