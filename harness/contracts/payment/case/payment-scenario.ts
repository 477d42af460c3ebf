/**
 * A payment scenario: a scenario of the payment contract (strategies/payment/contract.ts) against any
 * payment design, on real sessions, its pause points held, released or killed at on observed state,
 * never on a sleep. Most are isolation specs (docs/interleavings.md) whose PAY steps the interleaving
 * engine runs, as the reservation interleavings are; the rest drive `pay` from their own code, where the
 * engine has no verb for what they do (a proxy that loses a commit's answer, 20 workers at a barrier, a
 * crash child killed -9, the database crashed, a reservation strategy beside the design).
 * The suite crosses these only with payment designs: a reservation strategy is no case of a payment
 * scenario, nor the reverse.
 */
import type {
  PaymentCheckName,
  PaymentDesign,
  PaymentPausePoint,
  PaymentRequest,
} from '../../../../strategies/payment/contract.ts';
import type { ClusterNeeds } from '../../../cluster/cluster.ts';
import type { ClusterFaults } from '../../../cluster/cluster-context.ts';
import type { StepRecord } from '../../../interleaving/permutation.ts';
import type { Observed, OutcomeCounts } from '../../../verdict/case-result.ts';
import type { PaymentAnswer, PaymentCounts } from '../verdict/payment-invariants.ts';
import type { OrderFlow, OrderFlowSpec } from './order-flow-scenario.ts';

/** A `pay` started on a session of its own, held at a pause point or on its way to its answer. */
export interface PayInFlight {
  /** 'paused': it stopped at the point it was to be held at; 'finished': it ended without reaching it. */
  reached: Promise<'paused' | 'finished'>;
  /** Waits until the session is seen waiting on another backend (pg_blocking_pids), retrying, or ended. */
  blockedOrDone(): Promise<'blocked' | 'retrying' | 'done'>;
  /** Lets a held pay go on and returns its answer (the answer of one that already ended). */
  resume(): Promise<PaymentAnswer>;
  /** Terminates the session's backend where it is held (a worker dying there) and records the loss. */
  kill(): Promise<PaymentAnswer>;
}

/** A pay killed -9 in a crash child: the stage line it printed, the signal it died of, what was recorded. */
export interface PaymentCrash {
  /** The pause point it printed its stage line at, or 'done' when it finished before reaching it. */
  stage: string;
  signal: string;
  answer: PaymentAnswer;
}

export interface PaymentScriptContext {
  design: PaymentDesign;
  /** The first of the scenario's `holdAt` points the design declares (the scenario is n/a without one). */
  holdAt: PaymentPausePoint | undefined;
  /** One pay on a new session, to its end. */
  pay(request: PaymentRequest): Promise<PaymentAnswer>;
  /** One pay on a new session, held at `holdAt` when it gets there. */
  startPay(request: PaymentRequest, holdAt?: PaymentPausePoint): PayInFlight;
  /** One session per request, every one held at `holdAt` until all have reached it (or ended before it). */
  payTogether(requests: readonly PaymentRequest[], holdAt?: PaymentPausePoint): Promise<PaymentAnswer[]>;
  /** One pay whose commit answer is lost on the way back: the worker cannot know whether it paid. */
  payWithLostCommitAnswer(request: PaymentRequest): Promise<PaymentAnswer>;
  /**
   * Crashes the server (immediate shutdown) and restarts it on the same data directory; a pay in flight
   * across it answers INDETERMINATE. Only in a scenario that declares `crashesDatabase`.
   */
  crashDatabase(): Promise<void>;
  /** One pay in a child process killed -9 at `crashAt` (seen there by its stage line), then seen gone. */
  crashPay(request: PaymentRequest, crashAt: PaymentPausePoint): Promise<PaymentCrash>;
  /** The order flow, when the scenario declares `orderFlow`. */
  orders?: OrderFlow;
  /**
   * The cluster's faults, when the scenario declares `cluster` (cluster/cluster-faults.ts): a pay in
   * flight across a failover answers INDETERMINATE, as across a crash.
   */
  cluster?: ClusterFaults;
  /** Payments and outbox rows of the key, read now through the design (the counts a MISMATCH must keep). */
  countsFor(idempotencyKey: string): Promise<{ payments: number; outbox: number }>;
  observe(name: string, value: Observed): void;
}

export interface PaymentExpectations {
  /**
   * The exact answer counts (absent outcomes mean 0); a function of the pause point the case held or
   * killed at when that decides them (killed before its commit, a pay rolls back; after one, it may not).
   */
  outcomes?: OutcomeCounts | ((holdAt: PaymentPausePoint | undefined) => OutcomeCounts);
  /** Figures the scenario observed that must equal these exactly. */
  observations?: Readonly<Record<string, Observed>>;
  /** What the case must have driven to mean anything, one line per claim that did not happen. */
  exercised?(observations: Readonly<Record<string, Observed>>, design: PaymentDesign): string[];
  /**
   * A spec whose answers depend on the order (a kill before or after the retry): `outcomes`,
   * `observations` and `exercised` judge the listed permutation only; every other order is judged on the
   * invariants and errors.
   */
  orderDependent?: boolean;
  /**
   * Checks this scenario measures rather than judges (asynchronous replication loses what the primary
   * acknowledged past its standby, whatever the design): reported in the case's `boundaryNote`, never
   * failing it — as a reservation scenario's `boundaryChecks` (db-crash-async).
   */
  boundaryChecks?: readonly PaymentCheckName[];
}

/** The sessions a payment case opens at most, unless its scenario says more (`sessions`). */
export const PAYMENT_SESSIONS = 4;

interface PaymentScenarioBase {
  contract: 'payment';
  id: string;
  /** The sessions the case opens at most, for the connection room of cases run beside it (default PAYMENT_SESSIONS). */
  sessions?: number;
  /** The file the scenario was loaded from (a `file:` URL), for the report's sources. */
  source?: string;
  summary: string;
  /** The pause points the scenario holds pay at, in preference order; a design declaring none is n/a. */
  holdAt?: readonly PaymentPausePoint[];
  /**
   * Every design, negative controls too, runs it and is judged as if it claimed to hold: a spec file a
   * user runs (`run --spec`), where any failing check is what the spec shows.
   */
  everyDesignHolds?: true;
  /**
   * A program the explorer generated (harness/contracts/payment/explore/): a schedule that asks a blocked
   * session for a step is refused at once (invalid, not a finding), and a PAY … UNTIL whose pay ended
   * before its point is no claim broken — the program asked for the pause, not the design.
   */
  explored?: true;
  expect: PaymentExpectations;
}

/** A payment scenario driven by its own code, through the sessions of payment-sessions.ts. */
export interface PaymentScriptScenario extends PaymentScenarioBase {
  /**
   * The scenario crashes the database: n/a on a server the run cannot restart (`--database-url`), as a
   * reservation scenario's crash is. Such a case runs with nothing beside it on its server (case-lanes.ts).
   */
  crashesDatabase?: boolean;
  /** A reservation strategy driven beside the design (order-flow-scenario.ts); its reads join the checks. */
  orderFlow?: OrderFlowSpec;
  /** The cluster its cases run on (harness/cluster/, docs/cluster.md): each case gets one of its own. */
  cluster?: ClusterNeeds;
  run(ctx: PaymentScriptContext): Promise<void>;
}

/** What a payment spec's run gave the harness: the engine's records, the answers in them, the end counts. */
export interface PaymentSpecRun {
  steps: readonly StepRecord[];
  answers: readonly PaymentAnswer[];
  /** Payment and outbox rows over the keys the spec sent, from the harness's own final read. */
  counts: PaymentCounts;
}

/** A payment scenario written as an isolation spec of PAY steps, run by the interleaving engine. */
export interface PaymentSpecScenario extends PaymentScenarioBase {
  /**
   * The spec, given the pause point the case holds at (the first of `holdAt` the design declares): it
   * lists exactly one permutation, the one judged; `run --permutations all` also runs every other order.
   */
  spec(holdAt: PaymentPausePoint | undefined): string;
  /** The figures the expectations compare, computed from the harness's own records and reads. */
  observe?(run: PaymentSpecRun): Record<string, Observed>;
}

export type PaymentScenario = PaymentScriptScenario | PaymentSpecScenario;

export function definePaymentScenario(scenario: PaymentScenario): PaymentScenario {
  return scenario;
}

/** The payment drill's figures over a case's answers and end counts. */
export function paymentDrillFigures(
  answers: readonly PaymentAnswer[],
  counts: { payments: number; outbox: number },
): Record<string, number> {
  const responses = new Set(answers.flatMap((a) => (a.response ? [JSON.stringify(a.response)] : [])));
  return {
    requests: answers.length,
    inserted: answers.filter((a) => a.outcome === 'CREATED').length,
    reused: answers.filter((a) => a.outcome === 'REUSED').length,
    distinctResponses: responses.size,
    payment: counts.payments,
    outbox: counts.outbox,
  };
}
