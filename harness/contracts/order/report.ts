/**
 * The order contract in the report: its case table (scenario × order design, the answers and the stock
 * the harness read back) and its boundary table (per design: what it held, what caught a control), as
 * plain rows that report.md and the terminal both render, and its fields of report.json (`orders`,
 * `orderBoundary`).
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
import type { OrderDesignRef } from './designs/order-registry.ts';
import { ORDER_REPORT_SHAPE, type OrderReport } from './report-schema.ts';
import type { OrderCaseResult } from './verdict/order-case-result.ts';

/** `sku-a 0/20, sku-b 0/40`: what remains of each sku's stock. */
const stockText = (c: OrderCaseResult) =>
  c.stock
    ? Object.entries(c.stock)
        .map(([sku, s]) => `${sku} ${s.remaining}/${s.total}`)
        .join(', ')
    : '-';

const ORDER_BOUNDARY: BoundaryReading<OrderCaseResult> = {
  scenarios: 'order scenarios',
  drill: 'order-contention',
  drillReads: (c) => `; ${stockText(c)}`,
};

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

function orderSection(report: OrderReport): ContractSection {
  return {
    heading: '## Order contract',
    intro:
      'Multi-line orders (docs/contract.md, "Orders"): each order scenario against each order design; remaining / total is what the design\'s `remaining` read per sku at the end.',
    terminalHeading: 'Boundary — orders',
    designTable: (withGuarantee) =>
      designColumnsTable(report.orderBoundary, caseMatrix(report.orders, ORDER_READING), withGuarantee),
    caseTable: () => orderCaseTable(report.orders),
  };
}

export const ORDER_REPORT = {
  shape: ORDER_REPORT_SHAPE,
  fields: (cases: readonly OrderCaseResult[], refs: readonly OrderDesignRef[]): OrderReport => ({
    orders: [...cases] as OrderReport['orders'],
    orderBoundary: designBoundaryRows(
      cases,
      refs.map((r) => r.design),
      ORDER_BOUNDARY,
    ),
  }),
  casesOf: (report: OrderReport) => report.orders,
  markdown: (report: OrderReport) => sectionMarkdown(report.orders.length, orderSection(report)),
  terminal: (report: OrderReport) => sectionTerminal(report.orders.length, orderSection(report)),
  caseLine: orderCaseLine,
  matrix: {
    name: 'orders',
    promise: 'every line of a cart held or none, no sku oversold, every quantity returned once',
    reading: ORDER_READING,
  },
} satisfies ContractReport<OrderDesignRef, OrderCaseResult, OrderReport>;
