/**
 * The second business contract beside reservations (the isolation-matrix chapter's payment idempotency): a
 * payment worker sends an idempotency key with the request's fingerprint and a payment id of its own
 * proposing; one payment and one matching outbox row are written per key, however many workers send it, and
 * every later request with the key gets the recorded response back. The outbox is the only side effect: no
 * design calls an external system (payment-external-call-inside only waits, to show the cost of one
 * inside the transaction). The harness judges a design only through `pay`'s answers and its own
 * reads (`paymentStatus`, `outboxFor` per key it sent), compared with the design's `audit`.
 */
import type { ClientBase } from 'pg';
import type { Capability, Expectation, PausePoint, SessionContext, StrategyParameter } from '../contract.ts';

/**
 * CREATED: this call wrote the key's payment (and its outbox row). REUSED: the key was recorded with the
 * same fingerprint; the answer is the recorded response. MISMATCH: the key was recorded with another
 * fingerprint (the isolation-matrix chapter's P0001); nothing was written. GAVE_UP: a retrying design ran out
 * of attempts.
 */
export const PAYMENT_OUTCOMES = ['CREATED', 'REUSED', 'MISMATCH', 'BAD_REQUEST', 'GAVE_UP'] as const;
export type PaymentOutcome = (typeof PAYMENT_OUTCOMES)[number];

export interface PaymentRequest {
  idempotencyKey: string;
  /** sha256 over amount, currency and merchant (fingerprint.ts): what makes two requests the same. */
  fingerprint: string;
  order: string;
  /** Minor units (3000 = 30.00). */
  amount: number;
  currency: string;
  merchant: string;
  /** The payment id this worker proposes; only the winner's is recorded. */
  paymentId: string;
}

/** What a CREATED or REUSED answer carries: the key's recorded payment. */
export interface PaymentResponse {
  paymentId: string;
  order: string;
  amount: number;
  currency: string;
}

export interface PaymentResult {
  outcome: PaymentOutcome;
  response?: PaymentResponse;
}

/** A payment row as the design's `paymentStatus` reads it. */
export interface PaymentRecord extends PaymentResponse {
  fingerprint: string;
}

/** An outbox row as `outboxFor` reads it: the payment it announces. */
export interface OutboxRecord {
  paymentId: string;
}

/**
 * The design's own reading of its tables: it alone sees rows no key reaches (a payment under a key nobody
 * sent, an outbox row whose payment is gone). The harness compares it with its own reads.
 */
export interface PaymentAudit {
  payments: number;
  outbox: number;
  /** Keys owning more than one payment row. */
  keysWithManyPayments: number;
  /** Payments with no outbox row announcing them, and outbox rows announcing no payment. */
  paymentsWithoutOutbox: number;
  outboxWithoutPayment: number;
}

/** The checks of the payment contract; the harness computes each from its own reads (payment-invariants). */
export const PAYMENT_CHECKS = [
  'onePaymentPerKey',
  'outboxMatchesPayment',
  'reusedMatchesWinner',
  'mismatchWrote',
  'reusedOtherPayload',
  'unacknowledgedPayment',
  'lostAcknowledged',
  'paymentAuditMismatch',
  'linearizable',
  'soldMatchesOrders',
  'paidUnconfirmed',
  'outcomes',
  'observations',
  'errors',
  'exercised',
] as const;
export type PaymentCheckName = (typeof PAYMENT_CHECKS)[number];

export const PAYMENT_CHECK_MEANING: Readonly<Record<PaymentCheckName, string>> = {
  onePaymentPerKey: 'idempotency keys the harness sent that own more than one payment row',
  outboxMatchesPayment:
    'payments of the sent keys without exactly one outbox row announcing them, and outbox rows announcing no payment of their key',
  reusedMatchesWinner:
    "REUSED (and CREATED) answers for one key that differ from each other or from the key's recorded payment",
  mismatchWrote:
    'a key answered MISMATCH whose recorded payment is not the one first answered for it, or that owns more rows than before',
  reusedOtherPayload:
    "REUSED answers to a request whose fingerprint differs from the key's recorded one (a MISMATCH answered as a reuse)",
  unacknowledgedPayment:
    'payments under a sent key that no answer created (a rolled-back or killed attempt left a payment behind)',
  lostAcknowledged:
    'on a cluster: a payment acknowledged (CREATED or REUSED) that some member the cluster goes on with does not have, by its payment id',
  paymentAuditMismatch: "the design's own audit() disagrees with the harness's reads of the keys it sent",
  linearizable:
    "no order of the case's pays and reads, consistent with real time, gives every recorded answer under the payment model (a REUSED before any payment it could reuse, a CREATED after the key was paid)",
  soldMatchesOrders:
    "in an order flow: units gone from the reservation strategy's stock (total − remaining) differ from the orders whose reservation is HELD or CONFIRMED",
  paidUnconfirmed: "in an order flow: a payment under an order's key whose reservation is not CONFIRMED",
  outcomes: "the answer counts differ from the scenario's exact expectation",
  observations:
    "a figure the scenario observed (requests, inserted, reused, …) differs from the payment drill's",
  errors: 'a request failed with an exception the scenario did not cause on purpose',
  exercised: 'the case did not drive what it claims (no request blocked behind the winner, …)',
};

/** Where a payment may be held or killed: the reservation contract's names, for the same moments. */
export const PAYMENT_PAUSE_POINTS = ['after-read', 'before-commit', 'between-transactions'] as const;
export type PaymentPausePoint = Extract<PausePoint, (typeof PAYMENT_PAUSE_POINTS)[number]>;

export interface PaymentDesign {
  /** The contract a design implements: scenarios that drive another contract are not its cases. */
  contract: 'payment';
  id: string;
  title: string;
  /** One line: how the design stays correct (or, for a control, what it gets wrong). */
  guarantee: string;
  expect: Expectation;
  /** Per payment scenario, the checks that must catch a negative control (any one of them). */
  caughtBy?: Readonly<Record<string, readonly PaymentCheckName[]>>;
  needs?: readonly Capability[];
  /**
   * The design's knobs, as a reservation strategy's (contract.ts `parameters`): `run` and `bench` take
   * `--param <id>.<knob>=v1,v2,…`, `configure` builds each variant, whose id is `<id>[<knob>=<v>]`.
   */
  parameters?: Readonly<Record<string, StrategyParameter>>;
  /** The design with these knob values (every declared knob given, each within its bounds). */
  configure?(values: Readonly<Record<string, number>>): PaymentDesign;
  /** Pause points `pay` passes through, in order. */
  pausePoints: { pay: readonly PaymentPausePoint[] };
  /** Creates the design's tables in the current schema (search_path). */
  setup(db: ClientBase): Promise<void>;
  pay(ctx: SessionContext, request: PaymentRequest): Promise<PaymentResult>;
  /** Every payment recorded under the key (none, one or — a broken design — more), oldest first. */
  paymentStatus(db: ClientBase, idempotencyKey: string): Promise<readonly PaymentRecord[]>;
  /** Every outbox row written for the key. */
  outboxFor(db: ClientBase, idempotencyKey: string): Promise<readonly OutboxRecord[]>;
  audit(db: ClientBase): Promise<PaymentAudit>;
}
