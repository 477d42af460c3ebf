/**
 * The payment contract in the report: its case table (scenario × payment design, the answers and the
 * payment and outbox counts the harness read) and its boundary table (per design: what it held, what
 * caught a control), as plain rows that report.md and the terminal both render, and its fields of
 * report.json (`payments`, `paymentBoundary`).
 */
import { caseMatrix, type DetailReading } from '../../contract/case-matrix.ts';
import type { ContractReport, TableData } from '../../contract/contract.ts';
import {
  type BoundaryReading,
  type ContractSection,
  designBoundaryRows,
  sectionMarkdown,
  sectionTerminal,
} from '../../contract/design-boundary.ts';
import { designColumnsTable } from '../../contract/design-columns.ts';
import { formatOutcomes } from '../../verdict/case-result.ts';
import type { PaymentDesignRef } from './designs/payment-registry.ts';
import { PAYMENT_REPORT_SHAPE, type PaymentReport } from './report-schema.ts';
import type { PaymentCaseResult } from './verdict/payment-case-result.ts';

const PAYMENT_BOUNDARY: BoundaryReading<PaymentCaseResult> = {
  scenarios: 'payment scenarios',
  drill: 'payment-two-workers',
  drillReads: (c) => (c.counts ? `; payment ${c.counts.payments}, outbox ${c.counts.outbox}` : ''),
};

/** The payment cases that ran (n/a ones are left out, as the reservation table leaves them to one line). */
function paymentCaseTable(cases: readonly PaymentCaseResult[]): TableData {
  return {
    headers: ['case', 'expect', 'status', 'outcomes', 'payment / outbox', 'verdict'],
    rows: cases
      .filter((c) => c.status !== 'n/a')
      .map((c) => [
        c.id,
        c.expect,
        c.status,
        formatOutcomes(c.outcomes),
        c.counts ? `${c.counts.payments} / ${c.counts.outbox}` : '-',
        c.boundary,
      ]),
  };
}

/** One payment case's line while the run goes on. */
function paymentCaseLine(c: PaymentCaseResult): string {
  const mark = { pass: 'ok  ', fail: 'FAIL', broken: 'FAIL', 'n/a': 'n/a ' }[c.status];
  const counts = c.counts ? ` · payment ${c.counts.payments}, outbox ${c.counts.outbox}` : '';
  return `${mark} ${c.id} (${c.expect}) pay: ${formatOutcomes(c.outcomes)}${counts} — ${c.boundary}`;
}

/** The payment contract's reading of its cases for the matrix: its checks name a flaw, they count none. */
const PAYMENT_READING: DetailReading<PaymentCaseResult> = {
  checkCount: () => undefined,
  measuredBoundary: () => undefined,
  notCovered: () => false,
  facts: (c) => [
    `outcomes: ${formatOutcomes(c.outcomes)}`,
    ...(c.counts ? [`payment / outbox rows read back: ${c.counts.payments} / ${c.counts.outbox}`] : []),
  ],
};

function paymentSection(report: PaymentReport): ContractSection {
  return {
    heading: '## Payment contract',
    intro:
      "The isolation-matrix chapter's payment idempotency (docs/contract.md#payments): each payment scenario against each payment design; payment / outbox are the rows the harness read back over the keys the case sent.",
    terminalHeading: 'Boundary — payments',
    designTable: (withGuarantee) =>
      designColumnsTable(report.paymentBoundary, caseMatrix(report.payments, PAYMENT_READING), withGuarantee),
    caseTable: () => paymentCaseTable(report.payments),
  };
}

export const PAYMENT_REPORT = {
  shape: PAYMENT_REPORT_SHAPE,
  fields: (cases: readonly PaymentCaseResult[], refs: readonly PaymentDesignRef[]): PaymentReport => ({
    payments: [...cases] as PaymentReport['payments'],
    paymentBoundary: designBoundaryRows(
      cases,
      refs.map((r) => r.design),
      PAYMENT_BOUNDARY,
    ),
  }),
  casesOf: (report: PaymentReport) => report.payments,
  markdown: (report: PaymentReport) => sectionMarkdown(report.payments.length, paymentSection(report)),
  terminal: (report: PaymentReport) => sectionTerminal(report.payments.length, paymentSection(report)),
  caseLine: paymentCaseLine,
  matrix: {
    name: 'payments',
    promise: 'one payment and one outbox row per idempotency key, a mismatched payload refused',
    reading: PAYMENT_READING,
  },
} satisfies ContractReport<PaymentDesignRef, PaymentCaseResult, PaymentReport>;
