/**
 * docs/cluster.md's per-design tables are the committed cluster examples (reports/examples/cluster*),
 * cell for cell: each row the report gives is in the page as written here, so that a refreshed example
 * (`npm run examples -- cluster cluster-switchover`) and its docs cannot drift apart. The rows are
 * rendered from report.json alone, by the rule each table's header states.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

interface ExampleCase {
  id: string;
  scenario: string;
  strategy: string;
  status: string;
  invariants?: Record<string, number> | null;
  /** A payment case's count across copies (its invariants are its own). */
  lostAcknowledged?: number;
  fired?: string[];
  outcomes: Record<string, number>;
  observations?: Record<string, number>;
}

const EXAMPLES = ['reports/examples/cluster'];

function exampleCases(): ExampleCase[] {
  return EXAMPLES.flatMap((dir) => {
    const report = JSON.parse(read(`${dir}/report.json`)) as {
      ok: boolean;
      cases: ExampleCase[];
      payments?: ExampleCase[];
    };
    expect(report.ok, `${dir} is a passing run`).toBe(true);
    return [...report.cases, ...(report.payments ?? [])];
  });
}

const cases = exampleCases();
const measured = (c: ExampleCase) => c.status === 'pass' || c.status === 'fail';
const find = (scenario: string, design: string) =>
  cases.find((c) => c.scenario === scenario && c.strategy === design);

/** `lost / oversold / unknown / ms without a primary`; `-` where the case had no failover. */
function failoverCell(c: ExampleCase | undefined): string {
  if (!c?.invariants) return c?.status ?? 'not in the example';
  const seen = c.observations ?? {};
  return [
    c.invariants.lostAcknowledged ?? 0,
    c.invariants.oversold ?? 0,
    seen.unknownOutcomes ?? 0,
    seen.unavailableMs === undefined ? '-' : seen.unavailableMs.toLocaleString('en-US'),
  ].join(' / ');
}

const designsOf = (scenario: string) => [
  ...new Set(cases.filter((c) => c.scenario === scenario && measured(c)).map((c) => c.strategy)),
];
const row = (design: string, cells: string[]) => `| \`${design}\` | ${cells.join(' | ')} |`;

describe('docs/cluster.md against the committed cluster examples', () => {
  const page = read('docs/cluster.md');
  const tables: Record<string, string[]> = {
    'failover, sync and async': designsOf('failover-sync').map((d) =>
      row(d, [failoverCell(find('failover-sync', d)), failoverCell(find('failover-async', d))]),
    ),
  };

  for (const [table, rows] of Object.entries(tables)) {
    it(`has the ${table} table as the example measured it`, () => {
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.filter((r) => !page.includes(r))).toEqual([]);
    });
  }
});
