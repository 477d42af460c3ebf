/**
 * The payment contract in the report: its case table (scenario × payment design, the answers and the
 * payment and outbox counts the harness read) and its boundary table (per design: what it held, what
 * caught a control), as plain rows that report.md and the terminal both render, and its fields of
 * report.json (`payments`, `paymentBoundary`).
 */
import type { PaymentDesign } from '../../../strategies/payment/contract.ts';
import { caseMatrix, type DetailReading } from '../../contract/case-matrix.ts';
import type { ContractReport, MarkdownBlock, TableData, TerminalBlock } from '../../contract/contract.ts';
import { designColumnsTable } from '../../contract/design-columns.ts';
import { formatOutcomes } from '../../verdict/case-result.ts';
import type { PaymentDesignRef } from './designs/payment-registry.ts';
import { PAYMENT_REPORT_SHAPE, type PaymentReport } from './report-schema.ts';
import type { PaymentCaseResult } from './verdict/payment-case-result.ts';

/** One payment design's row: how it stays correct, and what its cases showed. */
export interface PaymentBoundaryRow {
  strategy: string;
  expect: 'hold' | 'violate';
  guarantee: string;
  /** `held in 4 of 4 scenarios`, `caught: onePaymentPerKey (payment-two-workers, …)`, or what broke. */
  shows: string;
  shownBy: string;
}

function showsOf(
  design: PaymentDesign,
  own: readonly PaymentCaseResult[],
): { shows: string; shownBy: string } {
  const judged = own.filter((c) => c.status === 'pass' || c.status === 'fail' || c.status === 'broken');
  const failing = judged.filter((c) => c.status !== 'pass');
  if (failing.length > 0) {
    return {
      shows: `FAILED: ${failing.map((c) => c.boundary).join('; ')}`,
      shownBy: failing.map((c) => c.id).join(', '),
    };
  }
  if (design.expect === 'violate') {
    const fired = [
      ...new Set(
        judged.flatMap((c) => (c.fired ?? []).filter((f) => design.caughtBy?.[c.scenario]?.includes(f))),
      ),
    ];
    return {
      shows: `caught by ${fired.join(', ') || '-'}`,
      shownBy: judged.map((c) => c.id).join(', ') || '-',
    };
  }
  const drill = judged.find((c) => c.scenario === 'payment-two-workers') ?? judged[0];
  const counts = drill?.counts ? `; payment ${drill.counts.payments}, outbox ${drill.counts.outbox}` : '';
  return {
    shows: `held in ${judged.length} of ${own.length} payment scenarios${drill ? ` (${drill.scenario}: ${formatOutcomes(drill.outcomes)}${counts})` : ''}`,
    shownBy: drill?.id ?? '-',
  };
}

function paymentBoundaryRows(
  cases: readonly PaymentCaseResult[],
  designs: readonly PaymentDesign[],
): PaymentBoundaryRow[] {
  return designs
    .filter((d) => cases.some((c) => c.strategy === d.id))
    .map((d) => ({
      strategy: d.id,
      expect: d.expect,
      guarantee: d.guarantee,
      ...showsOf(
        d,
        cases.filter((c) => c.strategy === d.id),
      ),
    }));
}

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

/** The payment designs in columns, from the payment matrix; `withGuarantee`: how each stays correct too. */
function paymentDesignTable(report: PaymentReport, withGuarantee = true): TableData {
  const payments = caseMatrix(report.payments, PAYMENT_READING);
  return designColumnsTable(report.paymentBoundary, payments, withGuarantee);
}

function markdown(report: PaymentReport): MarkdownBlock[] {
  if (report.payments.length === 0) return [];
  return [
    '## Payment contract',
    '',
    "The isolation-matrix chapter's payment idempotency (docs/contract.md#payments): each payment scenario against each payment design; payment / outbox are the rows the harness read back over the keys the case sent.",
    '',
    paymentDesignTable(report),
    '',
    paymentCaseTable(report.payments),
    '',
  ];
}

function terminal(report: PaymentReport): TerminalBlock[] {
  if (report.payments.length === 0) return [];
  return ['Boundary — payments', { table: paymentDesignTable(report, false), caps: [30, 10, 60] }, ''];
}

export const PAYMENT_REPORT = {
  shape: PAYMENT_REPORT_SHAPE,
  fields: (cases: readonly PaymentCaseResult[], refs: readonly PaymentDesignRef[]): PaymentReport => ({
    payments: [...cases] as PaymentReport['payments'],
    paymentBoundary: paymentBoundaryRows(
      cases,
      refs.map((r) => r.design),
    ),
  }),
  casesOf: (report: PaymentReport) => report.payments,
  markdown,
  terminal,
  caseLine: paymentCaseLine,
  matrix: {
    name: 'payments',
    promise: 'one payment and one outbox row per idempotency key, a mismatched payload refused',
    reading: PAYMENT_READING,
  },
} satisfies ContractReport<PaymentDesignRef, PaymentCaseResult, PaymentReport>;
