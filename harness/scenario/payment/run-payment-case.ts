/**
 * One payment case: a payment scenario against a payment design — n/a when the design sits it out (a
 * control outside the scenarios that catch it, a refused capability, no pause point to hold), else
 * driven on a schema of its own (a spec by the interleaving engine, with `--permutations all` each
 * other order on a schema of its own too; a script through payment-sessions.ts), read back through the
 * design per key it sent, audited in one snapshot and judged. A failure at any stage makes the case
 * broken, naming the stage.
 */
import type { PaymentAudit, PaymentDesign } from '../../../strategies/payment/contract.ts';
import type { CaseSettings } from '../../contract/case-settings.ts';
import type { RunDatabase } from '../../database/database.ts';
import type { CaseConnection } from '../../driver/client-task.ts';
import { oneLine } from '../../errors.ts';
import { FINAL_READ_SESSION, harnessNow } from '../../history/recorder.ts';
import { InvalidPermutation } from '../../interleaving/engine.ts';
import type { PaymentDesignRef } from '../../registry/payment-registry.ts';
import type { Observed, OutcomeCounts } from '../../verdict/case-result.ts';
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
import { CaseDeadline, withinCaseDeadline } from '../case-deadline.ts';
import { anotherOrder, paymentPermutationReport, withPaymentPermutations } from './payment-permutations.ts';
import type { PaymentScenario, PaymentSpecScenario } from './payment-scenario.ts';
import { drivePaymentScript } from './payment-script-drive.ts';
import { drivePaymentSpec, type PaymentDriven, paymentSpecOrders } from './payment-spec-drive.ts';

/** Why the design sits the scenario out, or undefined when the case is to be driven. */
function sitsOut(design: PaymentDesign, scenario: PaymentScenario, db: RunDatabase): string | undefined {
  if (design.expect === 'violate' && !design.caughtBy?.[scenario.id]) {
    return `negative control: caught in ${Object.keys(design.caughtBy ?? {}).join(', ')}`;
  }
  const refused = refusedNeed(design.needs ?? [], db.capabilities);
  if (refused) return refused;
  if ('run' in scenario && scenario.crashesDatabase && !db.crashAndRestart) return NO_RESTART;
  const hold = scenario.holdAt;
  if (hold && !hold.some((p) => design.pausePoints.pay.includes(p))) {
    return `not covered: ${scenario.id} — pay declares no pause point ${hold.join(' or ')}`;
  }
  return undefined;
}

type Identity = Pick<PaymentCaseResult, 'id' | 'contract' | 'scenario' | 'strategy' | 'expect'>;

/** How the case drives its payments on the case's connection (search_path its schema). */
type Drive = (connection: CaseConnection) => Promise<PaymentDriven>;

export async function runPaymentCase(
  db: RunDatabase,
  ref: PaymentDesignRef,
  scenario: PaymentScenario,
  settings: CaseSettings,
  /** `#n` for the n-th of `run --repeat`'s runs of the case, else empty. */
  repetition = '',
): Promise<PaymentCaseResult> {
  const design: PaymentDesign = scenario.everyDesignHolds ? { ...ref.design, expect: 'hold' } : ref.design;
  const identity: Identity = {
    id: `${scenario.id}/${design.id}${repetition}`,
    contract: 'payment',
    scenario: scenario.id,
    strategy: design.id,
    expect: design.expect,
  };
  const skipped = sitsOut(design, scenario, db);
  if (skipped)
    return { ...identity, status: 'n/a', outcomes: {}, boundary: `n/a: ${skipped}`, reason: skipped };
  if ('spec' in scenario) return runPaymentSpec(db, design, scenario, settings, identity);
  const script = { db, ref, design, timeoutMs: settings.timeoutMs };
  return onSchema(db, design, scenario, settings, identity, (connection) =>
    drivePaymentScript(connection, scenario, script),
  );
}

/** The spec's listed order, judged whole; with `--permutations all` every other order on fresh tables. */
async function runPaymentSpec(
  db: RunDatabase,
  design: PaymentDesign,
  scenario: PaymentSpecScenario,
  settings: CaseSettings,
  identity: Identity,
): Promise<PaymentCaseResult> {
  const { listed, others } = paymentSpecOrders(scenario, holdAtOf(design, scenario));
  const { timeoutMs } = settings;
  const result = await onSchema(db, design, scenario, settings, identity, (connection) =>
    drivePaymentSpec(connection, design, scenario, { permutation: listed, listed: true, timeoutMs }),
  );
  if (settings.permutations === 'listed' || result.status === 'broken') return result;
  const reports = [paymentPermutationReport(result, listed)];
  // As permutations.ts: only where the design should hold, one failing order's tables.
  let keepNextFailure = settings.keepFailed && result.expect === 'hold' && result.status === 'pass';
  for (const permutation of others) {
    const order = { ...settings, keepFailed: keepNextFailure, keepAll: false };
    const report = await anotherOrder(permutation, () =>
      onSchema(db, design, scenario, order, identity, (connection) =>
        drivePaymentSpec(connection, design, scenario, { permutation, listed: false, timeoutMs }),
      ),
    );
    if (report.keptSchema) keepNextFailure = false;
    reports.push(report);
  }
  return withPaymentPermutations(result, reports);
}

/** The case on a schema of its own: the design's tables, the drive, the final read, the audit, the verdict. */
async function onSchema(
  db: RunDatabase,
  design: PaymentDesign,
  scenario: PaymentScenario,
  settings: CaseSettings,
  identity: Identity,
  drive: Drive,
): Promise<PaymentCaseResult> {
  const schema = await db.createCaseSchema(`${scenario.id}_${design.id}`);
  let stage = 'setup';
  let keep = settings.keepFailed;
  try {
    await db.admin.query(`SET search_path TO ${schema}`);
    await design.setup(db.admin);
    stage = 'driving the payments';
    const connection = { connectionString: db.connectionString, schema };
    const driven = await withinCaseDeadline(drive(connection), new CaseDeadline(settings.timeoutMs), db);
    stage = 'the final read';
    const { answers } = driven;
    const readFrom = harnessNow();
    const keys = [...answers.map((a) => a.request.idempotencyKey), ...driven.keys];
    const read = await readPaymentsBack(connection, design, keys);
    const reads = [...driven.reads, ...finalReads(read, readFrom, harnessNow())];
    stage = 'the audit';
    const audit = await auditPaymentsInSnapshot(db, design);
    const orderProblems = await driven.orderProblems(read);
    const observations = driven.observe(read);
    const judged = judgeCase(design, scenario, driven, { read, audit, reads, orderProblems, observations });
    keep = settings.keepAll === true || (judged.status === 'fail' && settings.keepFailed);
    return {
      ...identity,
      ...judged,
      counts: countsOf(read),
      observations,
      ...(driven.steps
        ? { steps: driven.steps.map(({ sentAt: _, completedAt: __, ...shown }) => shown) }
        : {}),
      ...(keep ? { keptSchema: schema } : {}),
    };
  } catch (error: unknown) {
    // Another order of a spec that cannot go on: reported as invalid by its caller, not as broken.
    if (error instanceof InvalidPermutation) {
      keep = false;
      throw error;
    }
    const problem = `${stage} failed: ${oneLine(error)}`;
    return {
      ...identity,
      status: 'broken',
      outcomes: {},
      boundary: problem,
      problems: [problem],
      ...(keep ? { keptSchema: schema } : {}),
    };
  } finally {
    await db.admin.query('RESET search_path').catch(() => undefined);
    if (!keep) await db.dropCaseSchema(schema);
  }
}

/** The first of the scenario's `holdAt` points the design declares (the scenario is n/a without one). */
function holdAtOf(design: PaymentDesign, scenario: PaymentScenario) {
  return scenario.holdAt?.find((p) => design.pausePoints.pay.includes(p));
}

/** The scenario's exact answer counts for this design (they may follow the pause point it holds at). */
function expectedOutcomes(design: PaymentDesign, scenario: PaymentScenario): OutcomeCounts | undefined {
  const { outcomes } = scenario.expect;
  return typeof outcomes === 'function' ? outcomes(holdAtOf(design, scenario)) : outcomes;
}

/** What the harness read of a case after its drive, for its judgement. */
interface CaseReads {
  read: PaymentFinalRead;
  audit: PaymentAudit;
  /** Every read of payments with its times, mid-case and final, for the history check. */
  reads: readonly PaymentRead[];
  /** The order flow's own checks over its reads (order-flow.ts), none outside an order flow. */
  orderProblems: readonly PaymentProblem[];
  /** The figures the scenario's expectations compare, from the drive's records and the final read. */
  observations: Readonly<Record<string, Observed>>;
}

/** Every check of the case, computed by the harness from its own records and reads, and the verdict. */
function judgeCase(design: PaymentDesign, scenario: PaymentScenario, driven: PaymentDriven, e: CaseReads) {
  const answers: readonly PaymentAnswer[] = driven.answers;
  const outcomes = countPaymentOutcomes(answers);
  const { observations } = e;
  // Another order of an order-dependent spec: its answers are not the listed order's to compare.
  const exact = driven.listed || scenario.expect.orderDependent !== true;
  const { expect } = scenario;
  const exercised = [
    ...driven.notExercised,
    ...((exact ? expect.exercised?.(observations, design) : undefined) ?? []),
  ].map((message) => ({ check: 'exercised' as const, message }));
  const history = judgePaymentHistory(answers, e.reads);
  const found = [
    ...paymentInvariantProblems(answers, e.read, e.audit),
    ...e.orderProblems,
    ...history.problems,
    ...(exact ? exactOutcomes(expectedOutcomes(design, scenario), outcomes) : []),
    ...(exact ? exactObservations(expect.observations, observations) : []),
    ...erroredPayments(answers),
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

/** The design's audit in one REPEATABLE READ snapshot, as the reservation audit is taken. */
async function auditPaymentsInSnapshot(db: RunDatabase, design: PaymentDesign) {
  await db.admin.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    return await design.audit(db.admin);
  } finally {
    await db.admin.query('COMMIT');
  }
}
