/**
 * The payment contract in the report: its case table (scenario × payment design, the answers and the
 * payment and outbox counts the harness read) and its boundary table (per design: what it held, what
 * caught a control), as plain rows that report.md and the terminal both render.
 */
import type { PaymentDesign } from '../../strategies/payment/contract.ts';
import { formatOutcomes } from '../verdict/case-result.ts';
import type { PaymentCaseResult } from '../verdict/payment-case-result.ts';
import type { DetailReading } from './case-details.ts';
import type { TableData } from './result-tables.ts';

/** One payment design's row: how it stays correct, and what its cases showed. */
export interface PaymentBoundaryRow {
  strategy: string;
  expect: 'hold' | 'violate';
  guarantee: string;
  /** `held in 4 of 4 scenarios`, `caught: onePaymentPerKey (payment-seed-workers, …)`, or what broke. */
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
  const seed = judged.find((c) => c.scenario === 'payment-seed-workers') ?? judged[0];
  const counts = seed?.counts ? `; payment ${seed.counts.payments}, outbox ${seed.counts.outbox}` : '';
  return {
    shows: `held in ${judged.length} of ${own.length} payment scenarios${seed ? ` (${seed.scenario}: ${formatOutcomes(seed.outcomes)}${counts})` : ''}`,
    shownBy: seed?.id ?? '-',
  };
}

export function paymentBoundaryRows(
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
export function paymentCaseTable(cases: readonly PaymentCaseResult[]): TableData {
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
export function paymentCaseLine(c: PaymentCaseResult): string {
  const mark = { pass: 'ok  ', fail: 'FAIL', broken: 'FAIL', 'n/a': 'n/a ' }[c.status];
  const counts = c.counts ? ` · payment ${c.counts.payments}, outbox ${c.counts.outbox}` : '';
  return `${mark} ${c.id} (${c.expect}) pay: ${formatOutcomes(c.outcomes)}${counts} — ${c.boundary}`;
}

/** The payment contract's reading of its cases for the matrix: its checks name a flaw, they count none. */
export const PAYMENT_READING: DetailReading<PaymentCaseResult> = {
  checkCount: () => undefined,
  measuredBoundary: () => undefined,
  notCovered: () => false,
  facts: (c) => [
    `outcomes: ${formatOutcomes(c.outcomes)}`,
    ...(c.counts ? [`payment / outbox rows read back: ${c.counts.payments} / ${c.counts.outbox}`] : []),
  ],
};
