/**
 * One payment case: a payment scenario against a payment design — n/a when the design sits it out (a
 * control outside the scenarios that catch it, a refused capability, no pause point to hold), else
 * driven on a schema of its own, read back through the design per key it sent, audited in one snapshot
 * and judged. A failure at any stage makes the case broken, naming the stage.
 */
import type { PaymentAudit, PaymentDesign } from '../../../strategies/payment/contract.ts';
import type { RunDatabase } from '../../database/database.ts';
import { oneLine } from '../../errors.ts';
import { FINAL_READ_SESSION, harnessNow } from '../../history/recorder.ts';
import type { PaymentDesignRef } from '../../registry/payment-registry.ts';
import type { Observed } from '../../verdict/case-result.ts';
import type { PaymentCaseResult } from '../../verdict/payment-case-result.ts';
import { type PaymentFinalRead, readPaymentsBack } from '../../verdict/payment-final-read.ts';
import { judgePaymentHistory, type PaymentRead } from '../../verdict/payment-history-check.ts';
import {
  countsOf,
  type PaymentAnswer,
  type PaymentProblem,
  paymentInvariantProblems,
} from '../../verdict/payment-invariants.ts';
import {
  countPaymentOutcomes,
  erroredPayments,
  exactObservations,
  exactOutcomes,
  judgePayment,
} from '../../verdict/payment-verdict.ts';
import { NO_RESTART } from '../applicability.ts';
import { refusedNeed } from '../capability-needs.ts';
import { withinCaseDeadline } from '../case-deadline.ts';
import type { CaseSettings } from '../case-spec.ts';
import { crashPaymentDatabase } from './crash-payment-database.ts';
import { openOrderFlow } from './order-flow.ts';
import { crashPayOf } from './payment-crash.ts';
import type { PaymentScenario, PaymentScriptContext } from './payment-scenario.ts';
import { PaymentSessions } from './payment-sessions.ts';

/** Why the design sits the scenario out, or undefined when the case is to be driven. */
function sitsOut(design: PaymentDesign, scenario: PaymentScenario, db: RunDatabase): string | undefined {
  if (design.expect === 'violate' && !design.caughtBy?.[scenario.id]) {
    return `negative control: caught in ${Object.keys(design.caughtBy ?? {}).join(', ')}`;
  }
  const refused = refusedNeed(design.needs ?? [], db.capabilities);
  if (refused) return refused;
  if (scenario.crashesDatabase && !db.crashAndRestart) return NO_RESTART;
  const hold = scenario.holdAt;
  if (hold && !hold.some((p) => design.pausePoints.pay.includes(p))) {
    return `not covered: ${scenario.id} — pay declares no pause point ${hold.join(' or ')}`;
  }
  return undefined;
}

export async function runPaymentCase(
  db: RunDatabase,
  ref: PaymentDesignRef,
  scenario: PaymentScenario,
  settings: CaseSettings,
  /** `#n` for the n-th of `run --repeat`'s runs of the case, else empty. */
  repetition = '',
): Promise<PaymentCaseResult> {
  const { design } = ref;
  const identity = {
    id: `${scenario.id}/${design.id}${repetition}`,
    contract: 'payment' as const,
    scenario: scenario.id,
    strategy: design.id,
    expect: design.expect,
  };
  const skipped = sitsOut(design, scenario, db);
  if (skipped)
    return { ...identity, status: 'n/a', outcomes: {}, boundary: `n/a: ${skipped}`, reason: skipped };
  const schema = await db.createCaseSchema(`${scenario.id}_${design.id}`);
  let stage = 'setup';
  let keep = settings.keepFailed;
  try {
    await db.admin.query(`SET search_path TO ${schema}`);
    await design.setup(db.admin);
    stage = 'driving the payments';
    const connection = { connectionString: db.connectionString, schema };
    const sessions = new PaymentSessions(connection, () => db.admin, design, settings.timeoutMs);
    const control = { admin: db.admin, timeoutMs: settings.timeoutMs };
    const orders = await openOrderFlow(scenario.orderFlow, {
      connection,
      ...control,
      payment: ref,
      sessions,
    });
    const faults = { crashPay: crashPayOf(connection, control, ref.moduleUrl, sessions), orders };
    const observations: Record<string, Observed> = {};
    const reads: PaymentRead[] = [];
    try {
      await withinCaseDeadline(
        scenario.run(
          scriptContext(design, scenario, sessions, {
            observations,
            reads,
            crash: () => crashPaymentDatabase(db, schema, sessions),
            faults,
          }),
        ),
        settings.timeoutMs,
        db,
      );
    } finally {
      await Promise.all([sessions.close(), orders?.close()]);
    }
    stage = 'the final read';
    const answers = sessions.recorded();
    const readFrom = harnessNow();
    const keys = [...answers.map((a) => a.request.idempotencyKey), ...(orders?.keys ?? [])];
    const read = await readPaymentsBack(connection, design, keys);
    reads.push(...finalReads(read, readFrom, harnessNow()));
    stage = 'the audit';
    const audit = await auditPaymentsInSnapshot(db, design);
    const orderProblems = (await orders?.problems(read)) ?? [];
    const judged = judgeCase(design, scenario, { answers, read, audit, reads, observations, orderProblems });
    keep = settings.keepAll === true || (judged.status === 'fail' && settings.keepFailed);
    return { ...identity, ...judged, counts: countsOf(read), observations };
  } catch (error: unknown) {
    const problem = `${stage} failed: ${oneLine(error)}`;
    return { ...identity, status: 'broken', outcomes: {}, boundary: problem, problems: [problem] };
  } finally {
    await db.admin.query('RESET search_path').catch(() => undefined);
    if (!keep) await db.dropCaseSchema(schema);
  }
}

/** What the harness recorded and read of a case, for its judgement. */
interface CaseEvidence {
  answers: readonly PaymentAnswer[];
  read: PaymentFinalRead;
  audit: PaymentAudit;
  reads: readonly PaymentRead[];
  observations: Readonly<Record<string, Observed>>;
  /** The order flow's own checks over its reads (order-flow.ts), none outside an order flow. */
  orderProblems: readonly PaymentProblem[];
}

/** Every check of the case, computed by the harness from its own records and reads, and the verdict. */
function judgeCase(design: PaymentDesign, scenario: PaymentScenario, e: CaseEvidence) {
  const outcomes = countPaymentOutcomes(e.answers);
  const exercised = (scenario.expect.exercised?.(e.observations, design) ?? []).map((message) => ({
    check: 'exercised' as const,
    message,
  }));
  const history = judgePaymentHistory(e.answers, e.reads);
  const found = [
    ...paymentInvariantProblems(e.answers, e.read, e.audit),
    ...e.orderProblems,
    ...history.problems,
    ...exactOutcomes(scenario.expect.outcomes, outcomes),
    ...exactObservations(scenario.expect.observations, e.observations),
    ...erroredPayments(e.answers),
    ...exercised,
  ];
  return { ...judgePayment(design, scenario.id, found), outcomes, history: history.summary };
}

/** The final read as the history records it: every key read on one connection between two instants. */
function finalReads(read: PaymentFinalRead, invokedAt: number, completedAt: number): PaymentRead[] {
  return [...read].map(([idempotencyKey, k]) => ({
    idempotencyKey,
    payments: k.payments,
    session: FINAL_READ_SESSION,
    invokedAt,
    completedAt,
  }));
}

function scriptContext(
  design: PaymentDesign,
  scenario: PaymentScenario,
  sessions: PaymentSessions,
  seen: {
    observations: Record<string, Observed>;
    reads: PaymentRead[];
    crash: () => Promise<void>;
    faults: Pick<PaymentScriptContext, 'crashPay' | 'orders'>;
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

/** The design's audit in one REPEATABLE READ snapshot, as the reservation audit is taken. */
async function auditPaymentsInSnapshot(db: RunDatabase, design: PaymentDesign) {
  await db.admin.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    return await design.audit(db.admin);
  } finally {
    await db.admin.query('COMMIT');
  }
}
