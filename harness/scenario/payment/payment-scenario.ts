/**
 * A payment scenario: a scenario of the payment contract (strategies/payment/contract.ts), driven by its
 * own code against any payment design through `pay` on real sessions, with the pause points of the
 * design held, released or killed at on observed state, never on a sleep. The suite crosses these only
 * with payment designs: a reservation strategy is no case of a payment scenario, nor the reverse.
 */
import type {
  PaymentDesign,
  PaymentPausePoint,
  PaymentRequest,
} from '../../../strategies/payment/contract.ts';
import type { Observed, OutcomeCounts } from '../../verdict/case-result.ts';
import type { PaymentAnswer } from '../../verdict/payment-invariants.ts';

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
  /** Payments and outbox rows of the key, read now through the design (the counts a MISMATCH must keep). */
  countsFor(idempotencyKey: string): Promise<{ payments: number; outbox: number }>;
  observe(name: string, value: Observed): void;
}

export interface PaymentExpectations {
  /** The exact answer counts (absent outcomes mean 0). */
  outcomes?: OutcomeCounts;
  /** Figures the scenario observed that must equal these exactly. */
  observations?: Readonly<Record<string, Observed>>;
  /** What the case must have driven to mean anything, one line per claim that did not happen. */
  exercised?(observations: Readonly<Record<string, Observed>>, design: PaymentDesign): string[];
}

export interface PaymentScenario {
  contract: 'payment';
  id: string;
  /** The file the scenario was loaded from (a `file:` URL), for the report's sources. */
  source?: string;
  summary: string;
  /** The pause points the scenario holds pay at, in preference order; a design declaring none is n/a. */
  holdAt?: readonly PaymentPausePoint[];
  run(ctx: PaymentScriptContext): Promise<void>;
  expect: PaymentExpectations;
}

export function definePaymentScenario(scenario: PaymentScenario): PaymentScenario {
  return scenario;
}

/** Seed 002's figures over a case's answers and end counts. */
export function seedFigures(
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
