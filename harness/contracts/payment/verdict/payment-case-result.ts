/**
 * A payment case's result, as the report keeps it: the identity and verdict a reservation case has, the
 * answer counts, and the payment figures the harness read itself (report-schema.ts, `payments`).
 */
import type { PaymentCheckName, PaymentDesign } from '../../../../strategies/payment/contract.ts';
import type { HistorySummary } from '../../../history/history-summary.ts';
import type {
  CaseResultBase,
  Observed,
  PermutationReport,
  ReportedStep,
} from '../../../verdict/case-result.ts';
import type { PaymentCopySummary } from './payment-copies.ts';
import type { PaymentCounts } from './payment-invariants.ts';

/** A payment case's result: the case table's columns, and the payment figures the harness read. */
export interface PaymentCaseResult extends CaseResultBase {
  contract: 'payment';
  expect: PaymentDesign['expect'];
  /** The harness's totals over the keys the case sent (its reads, not the design's audit). */
  counts?: PaymentCounts;
  observations?: Record<string, Observed>;
  /** The case's pays and reads checked against the payment model (`linearizable`). */
  history?: HistorySummary;
  /** A spec's recorded steps (its listed permutation's), as an interleaving case keeps them. */
  steps?: ReportedStep[];
  /** `run --permutations all`: every order of a spec's steps, the listed one first. */
  permutations?: PermutationReport[];
  fired?: PaymentCheckName[];
  /** A cluster case: acknowledged payments some member the cluster goes on with lacks (payment-copies.ts). */
  lostAcknowledged?: number;
  /** A cluster case: every member that was writable at some point, the authority first, as read. */
  copies?: PaymentCopySummary[];
  /** What the scenario measures rather than judges (`boundaryChecks`), as found. */
  boundaryNote?: string;
}
