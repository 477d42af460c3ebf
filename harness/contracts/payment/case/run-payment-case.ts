/**
 * One payment case: a payment scenario against a payment design — n/a when the design sits it out (a
 * control outside the scenarios that catch it, a refused capability, no pause point to hold), else
 * driven on a schema of its own (a spec by the interleaving engine, with `--permutations all` each
 * other order on a schema of its own too; a script through payment-sessions.ts), read back through the
 * design per key it sent, audited in one snapshot and judged. A failure at any stage makes the case
 * broken, naming the stage.
 */
import {
  PAYMENT_OUTCOMES,
  type PaymentAudit,
  type PaymentCheckName,
  type PaymentDesign,
} from '../../../../strategies/payment/contract.ts';
import { NO_RESTART, refusedNeed, sitsOutByChoice } from '../../../case/applicability.ts';
import { CaseDeadline, withinCaseDeadline } from '../../../case/case-deadline.ts';
import { keepsTables, onCaseSchema } from '../../../case/case-schema.ts';
import { specInEveryOrder } from '../../../case/permutations.ts';
import { runOnCluster } from '../../../cluster/cluster-case.ts';
import type { ClusterSource } from '../../../cluster/cluster-source.ts';
import type { CaseSettings } from '../../../contract/case-settings.ts';
import type { RunDatabase } from '../../../database/database.ts';
import type { CaseConnection } from '../../../driver/case-connection.ts';
import { FINAL_READ_SESSION, harnessNow } from '../../../history/recorder.ts';
import type { Observed, OutcomeCounts } from '../../../verdict/case-result.ts';
import {
  countOutcomes,
  errorProblems,
  exactly,
  judge,
  notExercised,
  observedExactly,
  type Problem,
} from '../../../verdict/judgement.ts';
import { inSnapshot } from '../../../verdict/snapshot.ts';
import type { PaymentDesignRef } from '../designs/payment-registry.ts';
import type { PaymentCaseResult } from '../verdict/payment-case-result.ts';
import type { PaymentFinalRead } from '../verdict/payment-final-read.ts';
import { judgePaymentHistory, type PaymentRead } from '../verdict/payment-history-check.ts';
import {
  countsOf,
  type PaymentAnswer,
  type PaymentProblem,
  paymentInvariantProblems,
} from '../verdict/payment-invariants.ts';
import { paymentFinalReads } from './payment-final-reads.ts';
import type { PaymentScenario, PaymentSpecScenario } from './payment-scenario.ts';
import { drivePaymentScript } from './payment-script-drive.ts';
import { drivePaymentSpec, type PaymentDriven, paymentSpecOrders } from './payment-spec-drive.ts';

/** Why the design sits the scenario out, or undefined when the case is to be driven. */
function sitsOut(design: PaymentDesign, scenario: PaymentScenario, db: RunDatabase): string | undefined {
  const chosen = sitsOutByChoice(design, scenario);
  if (chosen) return chosen;
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
  /** Where a cluster scenario's case gets its cluster (`run --cluster`). */
  cluster?: ClusterSource,
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
  const scripted = (on: RunDatabase) =>
    onSchema(on, design, scenario, settings, identity, (connection) =>
      drivePaymentScript(connection, scenario, { db: on, ref, design, timeoutMs: settings.timeoutMs }),
    );
  if (!scenario.cluster) return scripted(db);
  return runOnCluster<PaymentCaseResult>(cluster, scenario.cluster, db.capabilities, {
    notHere: (reason) => ({ ...identity, status: 'n/a', outcomes: {}, boundary: `n/a: ${reason}`, reason }),
    kept: (result) => result.keptSchema !== undefined,
    run: scripted,
  });
}

/** The spec's listed order, judged whole; with `--permutations all` every other order on fresh tables. */
async function runPaymentSpec(
  db: RunDatabase,
  design: PaymentDesign,
  scenario: PaymentSpecScenario,
  settings: CaseSettings,
  identity: Identity,
): Promise<PaymentCaseResult> {
  return specInEveryOrder(
    paymentSpecOrders(scenario, holdAtOf(design, scenario)),
    settings,
    (permutation, order, listed) =>
      onSchema(db, design, scenario, order, identity, (connection) =>
        drivePaymentSpec(connection, design, scenario, {
          permutation,
          listed,
          timeoutMs: settings.timeoutMs,
        }),
      ),
  );
}

/** The case on a schema of its own: the design's tables, the drive, the final read, the audit, the verdict. */
function onSchema(
  db: RunDatabase,
  design: PaymentDesign,
  scenario: PaymentScenario,
  settings: CaseSettings,
  identity: Identity,
  drive: Drive,
): Promise<PaymentCaseResult> {
  return onCaseSchema<PaymentCaseResult>(db, settings, {
    name: `${scenario.id}_${design.id}`,
    work: async (schema, at) => {
      await db.admin.query(`SET search_path TO ${schema}`);
      await design.setup(db.admin);
      at('driving the payments');
      const connection = { connectionString: db.connectionString, schema };
      const driven = await withinCaseDeadline(drive(connection), new CaseDeadline(settings.timeoutMs), db);
      at('the final read');
      const { answers } = driven;
      const readFrom = harnessNow();
      const keys = [...answers.map((a) => a.request.idempotencyKey), ...driven.keys];
      const final = await paymentFinalReads(db, connection, design, keys, answers, settings.timeoutMs);
      const { read } = final;
      const reads = [...driven.reads, ...finalReads(read, readFrom, harnessNow())];
      at('the audit');
      const audit = await inSnapshot(db.admin, () => design.audit(db.admin));
      const orderProblems = await driven.orderProblems(read);
      const observations = driven.observe(read);
      const across = final.problems;
      const e = { read, audit, reads, orderProblems, observations, across };
      const judged = judgeCase(design, scenario, driven, e);
      return {
        ...identity,
        ...judged,
        counts: countsOf(read),
        ...(final.cluster ?? {}),
        observations,
        ...(driven.steps
          ? { steps: driven.steps.map(({ sentAt: _, completedAt: __, ...shown }) => shown) }
          : {}),
        ...(keepsTables(settings, judged.status) ? { keptSchema: schema } : {}),
      };
    },
    broken: (problem, keptSchema) => ({
      ...identity,
      status: 'broken',
      outcomes: {},
      boundary: problem,
      problems: [problem],
      ...(keptSchema ? { keptSchema } : {}),
    }),
  });
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
  /** A cluster case's counts across its copies (payment-final-reads.ts); none on one server. */
  across: readonly PaymentProblem[];
}

/** Every check of the case, computed by the harness from its own records and reads, and the verdict. */
function judgeCase(design: PaymentDesign, scenario: PaymentScenario, driven: PaymentDriven, e: CaseReads) {
  const answers: readonly PaymentAnswer[] = driven.answers;
  const outcomes = countOutcomes(answers, PAYMENT_OUTCOMES);
  const { observations } = e;
  // Another order of an order-dependent spec: its answers are not the listed order's to compare.
  const exact = driven.listed || scenario.expect.orderDependent !== true;
  const { expect } = scenario;
  const claims = [
    ...driven.notExercised,
    ...((exact ? expect.exercised?.(observations, design) : undefined) ?? []),
  ];
  const expected = expectedOutcomes(design, scenario);
  const history = judgePaymentHistory(answers, e.reads);
  const found: Problem<PaymentCheckName>[] = [
    ...paymentInvariantProblems(answers, e.read, e.audit),
    ...e.orderProblems,
    ...history.problems,
    ...(exact && expected ? exactly(expected, outcomes) : []),
    ...(exact && expect.observations ? observedExactly(expect.observations, observations) : []),
    ...e.across,
    ...errorProblems(answers),
    ...notExercised<PaymentCheckName>(claims),
  ];
  // What this scenario measures (asynchronous replication's loss) is reported, not judged.
  const measuredOnly: readonly string[] = expect.boundaryChecks ?? [];
  const judged = found.filter((p) => !measuredOnly.includes(p.check));
  const measured = found.filter((p) => measuredOnly.includes(p.check)).map((p) => p.message);
  const boundaryNote =
    measuredOnly.length > 0
      ? {
          boundaryNote: `measured in ${scenario.id}: ${measured.join(', ') || `0 (${measuredOnly.join(', ')})`}`,
        }
      : {};
  const held = () => 'held: one payment and one outbox row per key';
  const verdict = judge(design, design.expect, scenario.id, judged, held);
  return { ...verdict, ...boundaryNote, outcomes, history: history.summary };
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
