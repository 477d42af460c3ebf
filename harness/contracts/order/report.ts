/**
 * The order contract in the report: its case table (scenario × order design, the answers and the stock
 * the harness read back) and its boundary table (per design: what it held, what caught a control), as
 * plain rows that report.md and the terminal both render, and its fields of report.json (`orders`,
 * `orderBoundary`).
 */
import type { OrderDesign } from '../../../strategies/order/contract.ts';
import { caseMatrix, type DetailReading } from '../../contract/case-matrix.ts';
import type { ContractReport, MarkdownBlock, TableData, TerminalBlock } from '../../contract/contract.ts';
import { designColumnsTable } from '../../contract/design-columns.ts';
import { formatOutcomes } from '../../verdict/case-result.ts';
import type { OrderDesignRef } from './designs/order-registry.ts';
import { ORDER_REPORT_SHAPE, type OrderReport } from './report-schema.ts';
import type { OrderCaseResult } from './verdict/order-case-result.ts';

type BoundaryRow = OrderReport['orderBoundary'][number];

/** `sku-a 0/20, sku-b 0/40`: what remains of each sku's stock. */
const stockText = (c: OrderCaseResult) =>
  c.stock
    ? Object.entries(c.stock)
        .map(([sku, s]) => `${sku} ${s.remaining}/${s.total}`)
        .join(', ')
    : '-';

function showsOf(
  design: OrderDesign,
  own: readonly OrderCaseResult[],
): Pick<BoundaryRow, 'shows' | 'shownBy'> {
  const judged = own.filter((c) => c.status !== 'n/a');
  const failing = judged.filter((c) => c.status !== 'pass');
  if (failing.length > 0)
    return {
      shows: `FAILED: ${failing.map((c) => c.boundary).join('; ')}`,
      shownBy: failing.map((c) => c.id).join(', '),
    };
  if (design.expect === 'violate') {
    const fired = judged.flatMap((c) =>
      (c.fired ?? []).filter((f) => design.caughtBy?.[c.scenario]?.includes(f)),
    );
    return {
      shows: `caught by ${[...new Set(fired)].join(', ') || '-'}`,
      shownBy: judged.map((c) => c.id).join(', ') || '-',
    };
  }
  const drill = judged.find((c) => c.scenario === 'order-contention') ?? judged[0];
  return {
    shows: `held in ${judged.length} of ${own.length} order scenarios${drill ? ` (${drill.scenario}: ${formatOutcomes(drill.outcomes)}; ${stockText(drill)})` : ''}`,
    shownBy: drill?.id ?? '-',
  };
}

function orderBoundaryRows(
  cases: readonly OrderCaseResult[],
  designs: readonly OrderDesign[],
): BoundaryRow[] {
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

function orderCaseTable(cases: readonly OrderCaseResult[]): TableData {
  return {
    headers: ['case', 'expect', 'status', 'outcomes', 'remaining / total', 'verdict'],
    rows: cases
      .filter((c) => c.status !== 'n/a')
      .map((c) => [c.id, c.expect, c.status, formatOutcomes(c.outcomes), stockText(c), c.boundary]),
  };
}

function orderCaseLine(c: OrderCaseResult): string {
  const mark = { pass: 'ok  ', fail: 'FAIL', broken: 'FAIL', 'n/a': 'n/a ' }[c.status];
  const stock = c.stock ? ` · ${stockText(c)}` : '';
  return `${mark} ${c.id} (${c.expect}) order: ${formatOutcomes(c.outcomes)}${stock} — ${c.boundary}`;
}

/** The order contract's reading of its cases for the matrix: its checks name a flaw, they count none. */
const ORDER_READING: DetailReading<OrderCaseResult> = {
  checkCount: () => undefined,
  measuredBoundary: () => undefined,
  notCovered: (c) => c.status === 'n/a' && (c.reason ?? '').startsWith('not covered'),
  facts: (c) => [`outcomes: ${formatOutcomes(c.outcomes)}`, `remaining / total read back: ${stockText(c)}`],
};

function orderDesignTable(report: OrderReport, withGuarantee = true): TableData {
  return designColumnsTable(report.orderBoundary, caseMatrix(report.orders, ORDER_READING), withGuarantee);
}

function markdown(report: OrderReport): MarkdownBlock[] {
  if (report.orders.length === 0) return [];
  return [
    '## Order contract',
    '',
    'Multi-line orders (docs/contract.md, "Orders"): each order scenario against each order design; remaining / total is what the design\'s `remaining` read per sku at the end.',
    '',
    orderDesignTable(report),
    '',
    orderCaseTable(report.orders),
    '',
  ];
}

function terminal(report: OrderReport): TerminalBlock[] {
  if (report.orders.length === 0) return [];
  return ['Boundary — orders', { table: orderDesignTable(report, false), caps: [30, 10, 60] }, ''];
}

export const ORDER_REPORT = {
  shape: ORDER_REPORT_SHAPE,
  fields: (cases: readonly OrderCaseResult[], refs: readonly OrderDesignRef[]): OrderReport => ({
    orders: [...cases] as OrderReport['orders'],
    orderBoundary: orderBoundaryRows(
      cases,
      refs.map((r) => r.design),
    ),
  }),
  casesOf: (report: OrderReport) => report.orders,
  markdown,
  terminal,
  caseLine: orderCaseLine,
  matrix: {
    name: 'orders',
    promise: 'every line of a cart held or none, no sku oversold, every quantity returned once',
    reading: ORDER_READING,
  },
} satisfies ContractReport<OrderDesignRef, OrderCaseResult, OrderReport>;
