/**
 * The order contract in the report: its case table (scenario × order design, the answers and the stock
 * the harness read back) and its boundary table (per design: what it held, what caught a control), as
 * plain rows that report.md and the terminal both render, and its fields of report.json (`orders`,
 * `orderBoundary`).
 */
import { outcomeReport } from '../../contract/outcome-report.ts';
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

export const ORDER_REPORT = outcomeReport<
  OrderDesignRef,
  OrderCaseResult,
  OrderReport,
  typeof ORDER_REPORT_SHAPE
>({
  shape: ORDER_REPORT_SHAPE,
  fields: (cases, boundary) => ({ orders: [...cases] as OrderReport['orders'], orderBoundary: boundary }),
  casesOf: (report) => report.orders,
  boundaryOf: (report) => report.orderBoundary,
  boundary: {
    scenarios: 'order scenarios',
    drill: 'order-contention',
    drillReads: (c) => `; ${stockText(c)}`,
  },
  // Its checks name a flaw, they count none.
  reading: {
    checkCount: () => undefined,
    measuredBoundary: () => undefined,
    notCovered: (c) => c.status === 'n/a' && (c.reason ?? '').startsWith('not covered'),
    facts: (c) => [`outcomes: ${formatOutcomes(c.outcomes)}`, `remaining / total read back: ${stockText(c)}`],
  },
  section: {
    heading: '## Order contract',
    intro:
      'Multi-line orders (docs/contract.md, "Orders"): each order scenario against each order design; remaining / total is what the design\'s `remaining` read per sku at the end.',
    terminalHeading: 'Boundary — orders',
  },
  readBack: { header: 'remaining / total', cell: stockText },
  line: { label: 'order', reads: (c) => (c.stock ? stockText(c) : undefined) },
  matrix: {
    name: 'orders',
    promise: 'every line of a cart held or none, no sku oversold, every quantity returned once',
  },
});
