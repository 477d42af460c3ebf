/**
 * The one place the report's tables learn which contracts a report holds and how each reads its cases: per
 * contract that ran, in the report's order, its cases, its reading and its matrix. Everything drawn from
 * them (terminal, report.md, report.html, the scorecard) is the same code for every contract.
 */
import type { CaseResult } from '../verdict/case-result.ts';
import type { PaymentCaseResult } from '../verdict/payment-case-result.ts';
import { RESERVATION_READING } from './boundary-columns.ts';
import type { DetailCase, DetailReading } from './case-details.ts';
import { caseMatrix, type Matrix } from './case-matrix.ts';
import { PAYMENT_READING } from './payment-report.ts';
import type { Report } from './report-schema.ts';

export interface ContractMatrix {
  /** `reservations`, `payments`: the contract's name in a heading. */
  contract: string;
  /** What the contract promises, in a line. */
  promise: string;
  cases: readonly DetailCase[];
  reading: DetailReading;
  matrix: Matrix;
}

function section<C extends DetailCase>(
  contract: string,
  promise: string,
  cases: readonly C[],
  reading: DetailReading<C>,
): ContractMatrix[] {
  if (cases.length === 0) return [];
  // Each contract's reading takes its own cases only, which this section keeps together.
  return [
    { contract, promise, cases, reading: reading as DetailReading, matrix: caseMatrix(cases, reading) },
  ];
}

export function contractMatrices(report: Pick<Report, 'cases' | 'payments'>): ContractMatrix[] {
  return [
    ...section<CaseResult>(
      'reservations',
      'limited stock reserved under contention: never oversold, every answer kept',
      report.cases,
      RESERVATION_READING,
    ),
    ...section<PaymentCaseResult>(
      'payments',
      'one payment and one outbox row per idempotency key, a mismatched payload refused',
      report.payments,
      PAYMENT_READING,
    ),
  ];
}
