/**
 * The payment contract in the report: its case table (scenario × payment design, the answers and the
 * payment and outbox counts the harness read) and its boundary table (per design: what it held, what
 * caught a control), as plain rows that report.md and the terminal both render, and its fields of
 * report.json (`payments`, `paymentBoundary`).
 */
import { outcomeReport } from '../../contract/outcome-report.ts';
import { formatOutcomes } from '../../verdict/case-result.ts';
import type { PaymentDesignRef } from './designs/payment-registry.ts';
import { PAYMENT_REPORT_SHAPE, type PaymentReport } from './report-schema.ts';
import type { PaymentCaseResult } from './verdict/payment-case-result.ts';

export const PAYMENT_REPORT = outcomeReport<
  PaymentDesignRef,
  PaymentCaseResult,
  PaymentReport,
  typeof PAYMENT_REPORT_SHAPE
>({
  shape: PAYMENT_REPORT_SHAPE,
  fields: (cases, boundary) => ({
    payments: [...cases] as PaymentReport['payments'],
    paymentBoundary: boundary,
  }),
  casesOf: (report) => report.payments,
  boundaryOf: (report) => report.paymentBoundary,
  boundary: {
    scenarios: 'payment scenarios',
    drill: 'payment-two-workers',
    drillReads: (c) => (c.counts ? `; payment ${c.counts.payments}, outbox ${c.counts.outbox}` : ''),
  },
  // Its checks name a flaw, they count none.
  reading: {
    checkCount: () => undefined,
    measuredBoundary: () => undefined,
    notCovered: () => false,
    facts: (c) => [
      `outcomes: ${formatOutcomes(c.outcomes)}`,
      ...(c.counts ? [`payment / outbox rows read back: ${c.counts.payments} / ${c.counts.outbox}`] : []),
    ],
  },
  section: {
    heading: '## Payment contract',
    intro:
      "The isolation-matrix chapter's payment idempotency (docs/contract.md#payments): each payment scenario against each payment design; payment / outbox are the rows the harness read back over the keys the case sent.",
    terminalHeading: 'Boundary — payments',
  },
  readBack: {
    header: 'payment / outbox',
    cell: (c) => (c.counts ? `${c.counts.payments} / ${c.counts.outbox}` : '-'),
  },
  line: {
    label: 'pay',
    reads: (c) => (c.counts ? `payment ${c.counts.payments}, outbox ${c.counts.outbox}` : undefined),
  },
  matrix: {
    name: 'payments',
    promise: 'one payment and one outbox row per idempotency key, a mismatched payload refused',
  },
});
