/**
 * One payment case: a payment scenario against a payment design — n/a when the design sits it out (a
 * control outside the scenarios that catch it, a refused capability, no pause point to hold), else
 * driven on a schema of its own (a spec by the interleaving engine, with `--permutations all` each
 * other order on a schema of its own too; a script through payment-sessions.ts), read back through the
 * design per key it sent, audited in one snapshot and judged. A failure at any stage makes the case
 * broken, naming the stage.
 */
import type { PaymentDesign } from '../../../strategies/payment/contract.ts';
import type { RunDatabase } from '../../database/database.ts';
import type { CaseConnection } from '../../driver/client-task.ts';
import { oneLine } from '../../errors.ts';
import { InvalidPermutation } from '../../interleaving/engine.ts';
import type { PaymentDesignRef } from '../../registry/payment-registry.ts';
import type { Observed } from '../../verdict/case-result.ts';
import type { PaymentCaseResult } from '../../verdict/payment-case-result.ts';
import { readPaymentsBack } from '../../verdict/payment-final-read.ts';
import { countsOf, paymentInvariantProblems } from '../../verdict/payment-invariants.ts';
import {
  countPaymentOutcomes,
  erroredPayments,
  exactObservations,
  exactOutcomes,
  judgePayment,
} from '../../verdict/payment-verdict.ts';
import { refusedNeed } from '../capability-needs.ts';
import { withinCaseDeadline } from '../case-deadline.ts';
import type { CaseSettings } from '../case-spec.ts';
import { anotherOrder, paymentPermutationReport, withPaymentPermutations } from './payment-permutations.ts';
import type {
  PaymentScenario,
  PaymentScriptContext,
  PaymentScriptScenario,
  PaymentSpecScenario,
} from './payment-scenario.ts';
import { PaymentSessions } from './payment-sessions.ts';
import { drivePaymentSpec, type PaymentDriven, paymentSpecOrders } from './payment-spec-drive.ts';

/** Why the design sits the scenario out, or undefined when the case is to be driven. */
function sitsOut(design: PaymentDesign, scenario: PaymentScenario, db: RunDatabase): string | undefined {
  if (design.expect === 'violate' && !design.caughtBy?.[scenario.id]) {
    return `negative control: caught in ${Object.keys(design.caughtBy ?? {}).join(', ')}`;
  }
  const refused = refusedNeed(design.needs ?? [], db.capabilities);
  if (refused) return refused;
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
): Promise<PaymentCaseResult> {
  const design: PaymentDesign = scenario.everyDesignHolds ? { ...ref.design, expect: 'hold' } : ref.design;
  const identity: Identity = {
    id: `${scenario.id}/${design.id}`,
    contract: 'payment',
    scenario: scenario.id,
    strategy: design.id,
    expect: design.expect,
  };
  const skipped = sitsOut(design, scenario, db);
  if (skipped)
    return { ...identity, status: 'n/a', outcomes: {}, boundary: `n/a: ${skipped}`, reason: skipped };
  if ('spec' in scenario) return runPaymentSpec(db, design, scenario, settings, identity);
  return onSchema(db, design, scenario, settings, identity, (connection) =>
    driveScript(connection, design, scenario),
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
  const quiet = { ...settings, keepFailed: false, keepAll: false };
  for (const permutation of others) {
    reports.push(
      await anotherOrder(permutation, () =>
        onSchema(db, design, scenario, quiet, identity, (connection) =>
          drivePaymentSpec(connection, design, scenario, { permutation, listed: false, timeoutMs }),
        ),
      ),
    );
  }
  return withPaymentPermutations(result, reports);
}

/** A scripted scenario on the case's sessions, each answer recorded as it came in. */
async function driveScript(
  connection: CaseConnection,
  design: PaymentDesign,
  scenario: PaymentScriptScenario,
): Promise<PaymentDriven> {
  const sessions = new PaymentSessions(connection, design);
  const observations: Record<string, Observed> = {};
  try {
    await scenario.run(scriptContext(design, sessions, observations));
  } finally {
    await sessions.close();
  }
  return { answers: sessions.recorded(), listed: true, notExercised: [], observe: () => observations };
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
    const driven = await withinCaseDeadline(drive(connection), settings.timeoutMs, db);
    stage = 'the final read';
    const { answers } = driven;
    const read = await readPaymentsBack(
      connection,
      design,
      answers.map((a) => a.request.idempotencyKey),
    );
    stage = 'the audit';
    const audit = await auditPaymentsInSnapshot(db, design);
    const outcomes = countPaymentOutcomes(answers);
    const observations = driven.observe(read);
    // Another order of an order-dependent spec: its answers are not the listed order's to compare.
    const exact = driven.listed || scenario.expect.orderDependent !== true;
    const { expect } = scenario;
    const exercised = [
      ...driven.notExercised,
      ...((exact ? expect.exercised?.(observations, design) : undefined) ?? []),
    ].map((message) => ({ check: 'exercised' as const, message }));
    const found = [
      ...paymentInvariantProblems(answers, read, audit),
      ...(exact ? exactOutcomes(expect.outcomes, outcomes) : []),
      ...(exact ? exactObservations(expect.observations, observations) : []),
      ...erroredPayments(answers),
      ...exercised,
    ];
    const judgement = judgePayment(design, scenario.id, found);
    keep = settings.keepAll === true || (judgement.status === 'fail' && settings.keepFailed);
    return {
      ...identity,
      ...judgement,
      outcomes,
      counts: countsOf(read),
      observations,
      ...(driven.steps
        ? { steps: driven.steps.map(({ sentAt: _, completedAt: __, ...shown }) => shown) }
        : {}),
    };
  } catch (error: unknown) {
    // Another order of a spec that cannot go on: reported as invalid by its caller, not as broken.
    if (error instanceof InvalidPermutation) throw error;
    const problem = `${stage} failed: ${oneLine(error)}`;
    return { ...identity, status: 'broken', outcomes: {}, boundary: problem, problems: [problem] };
  } finally {
    await db.admin.query('RESET search_path').catch(() => undefined);
    if (!keep) await db.dropCaseSchema(schema);
  }
}

/** The first of the scenario's `holdAt` points the design declares (the scenario is n/a without one). */
function holdAtOf(design: PaymentDesign, scenario: PaymentScenario) {
  return scenario.holdAt?.find((p) => design.pausePoints.pay.includes(p));
}

function scriptContext(
  design: PaymentDesign,
  sessions: PaymentSessions,
  observations: Record<string, Observed>,
): PaymentScriptContext {
  return {
    design,
    pay: (request) => sessions.startPay(request).resume(),
    payTogether: (requests, at) => sessions.payTogether(requests, at),
    payWithLostCommitAnswer: (request) => sessions.payWithLostCommitAnswer(request),
    countsFor: async (key) => {
      const client = await sessions.connect();
      return countsOf(
        new Map([
          [
            key,
            {
              payments: await design.paymentStatus(client, key),
              outbox: await design.outboxFor(client, key),
            },
          ],
        ]),
      );
    },
    observe: (name, value) => {
      observations[name] = value;
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
