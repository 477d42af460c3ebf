/**
 * The tables a reviewer reads, from real results: outcomes per phase (never a sum that reads like
 * overselling), duration and latency per case in report.md, one boundary cell per design built by the same
 * rule for every design, and terminal output that fits 120 columns while report.md stays wide.
 */
import { stripVTControlCharacters } from 'node:util';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { RESERVATION } from '../harness/contracts/reservation/contract.ts';
import { loadAllBuiltIn } from '../harness/contracts/reservation/designs/registry.ts';
import { boundaryRows } from '../harness/contracts/reservation/report/boundary.ts';
import { BOUNDARY_COLUMNS } from '../harness/contracts/reservation/report/boundary-columns.ts';
import { PHASES_HEADER } from '../harness/contracts/reservation/report/result-tables.ts';
import type { CaseResult } from '../harness/contracts/reservation/verdict/case-result.ts';
import type { Report } from '../harness/report/report.ts';
import { renderMarkdown } from '../harness/report/report.ts';
import {
  caseLine,
  fitWidths,
  renderTerminal,
  TERMINAL_COLUMNS,
  wrapText,
} from '../harness/report/terminal.ts';
import { isMeasured, type OutcomeCounts } from '../harness/verdict/case-result.ts';
import { measured, runJson } from './run-cli.ts';

const serverUrl = inject('serverUrl');

let report: Report;
let isolated: Report;

beforeAll(async () => {
  const run = await runJson(serverUrl, [
    '--scenario',
    'contention,crash-recovery,expiry,false-sold-out,node-crash,commit-ack-lost,user-race',
    '--strategy',
    'hot-row,skip-locked-slots,check-then-act,split-tx-release,no-active-index',
  ]);
  expect(run.run.code, run.run.stderr).toBe(0);
  report = run.report;
  const levels = await runJson(serverUrl, [
    '--scenario',
    'user-race,contention-30-2',
    '--strategy',
    'hot-row,no-active-index',
    '--isolation',
    'read-committed,serializable',
  ]);
  isolated = levels.report;
}, 300_000);

function sum(phases: readonly { outcomes: OutcomeCounts }[]): OutcomeCounts {
  const total: OutcomeCounts = {};
  for (const p of phases) for (const [k, n] of Object.entries(p.outcomes)) total[k] = (total[k] ?? 0) + n;
  return total;
}

/** The first Markdown table under `## title`, as rows of trimmed cells (the header row first). */
function markdownTable(markdown: string, title: string): string[][] {
  const lines = markdown.slice(markdown.indexOf(`## ${title}\n`)).split('\n');
  const rows: string[] = [];
  for (const line of lines.slice(lines.findIndex((l) => l.startsWith('|')))) {
    if (!line.startsWith('|')) break;
    if (!/^\|\s*-/.test(line)) rows.push(line);
  }
  return rows.map((l) =>
    l
      .slice(1, -1)
      .split(' | ')
      .map((cell) => cell.trim()),
  );
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ');

describe('outcomes per phase', () => {
  it('are recorded per phase, add up to the case outcomes, and leave every verdict as it was', () => {
    for (const c of report.cases.filter(isMeasured)) expect(sum(c.phases), c.id).toEqual(c.outcomes);

    const crash = measured(report.cases, 'crash-recovery/hot-row');
    expect(crash).toMatchObject({ status: 'pass', outcomes: { HELD: 15, SOLD_OUT: 5 } });
    expect(crash.invariants).toMatchObject({ total: 10, active: 10, oversold: 0, drift: 0 });
    expect(crash.phases).toEqual([
      { label: 'reserve', outcomes: { HELD: 10 } },
      {
        label:
          'reserve after backdate (5 keys), kill -9 of expire at before-commit, expire ×2 (5 units back)',
        outcomes: { HELD: 5, SOLD_OUT: 5 },
      },
    ]);

    const expiry = measured(report.cases, 'expiry/hot-row');
    expect(expiry).toMatchObject({ status: 'pass', outcomes: { HELD: 20 }, invariants: { active: 0 } });
    expect(expiry.phases).toEqual([
      { label: 'reserve', outcomes: { HELD: 20 } },
      { label: 'then backdate ×2 (20 keys), expire ×10 (20 units back)', outcomes: {} },
    ]);

    expect(measured(report.cases, 'commit-ack-lost/hot-row').phases).toEqual([
      { label: 'reserve', outcomes: { INDETERMINATE: 5 } },
      { label: 'replay', outcomes: { REPLAY: 5 } },
    ]);
    expect(measured(report.cases, 'node-crash/hot-row').phases.map((p) => p.label)).toEqual([
      'reserve',
      expect.stringMatching(/^reserve after kill -9 of reserve at [a-z-]+, restart of node-1$/),
    ]);
    expect(measured(report.cases, 'contention/hot-row').phases).toEqual([
      { label: 'reserve', outcomes: { HELD: 40, SOLD_OUT: 110 } },
    ]);
    const caught = measured(report.cases, 'crash-recovery/split-tx-release');
    expect(caught).toMatchObject({ status: 'pass', expect: 'violate', invariants: { oversold: 5 } });
    expect(caught.phases.map((p) => p.outcomes)).toEqual([{ HELD: 10 }, { HELD: 10 }]);
  });

  it('are shown per phase in the case tables and lines, under a label that says so', () => {
    const shown =
      'reserve: HELD 10 · reserve after backdate (5 keys), kill -9 of expire at before-commit, expire ×2 (5 units back): HELD 5, SOLD_OUT 5';
    const rows = markdownTable(renderMarkdown(report), 'Cases');
    const headers = rows[0] ?? [];
    const at = headers.indexOf(PHASES_HEADER);
    expect(at).toBeGreaterThan(0);
    expect(rows.find((r) => r[0] === 'crash-recovery/hot-row')?.[at]).toBe(shown);
    expect(rows.find((r) => r[0] === 'expiry/hot-row')?.[at]).toBe(
      'reserve: HELD 20 · then backdate ×2 (20 keys), expire ×10 (20 units back)',
    );
    expect(renderMarkdown(report)).toContain('each phase counts its own answers only');

    // The terminal shows the case's line (run --verbose), not the case table.
    const line = oneLine(caseLine(RESERVATION, measured(report.cases, 'crash-recovery/hot-row')));
    expect(line).toContain(shown);
    // The sum over the phases is not shown again as if it were one more phase.
    expect(line).not.toContain('HELD 15');
  });
});

describe('duration and latency per case in report.md', () => {
  it('has a column for each, with units, filled from the case result', () => {
    const rows = markdownTable(renderMarkdown(report), 'Cases');
    const headers = rows[0] ?? [];
    const duration = headers.indexOf('duration (s)');
    const p50 = headers.indexOf('latency p50 (ms)');
    const p99 = headers.indexOf('latency p99 (ms)');
    expect([duration, p50, p99].every((i) => i > 0)).toBe(true);
    for (const c of report.cases) expect(c.durationMs, c.id).toBeGreaterThanOrEqual(0);
    const clients = measured(report.cases, 'contention/hot-row');
    const row = rows.find((r) => r[0] === clients.id) ?? [];
    expect(row[duration]).toBe(((clients.durationMs ?? 0) / 1000).toFixed(2));
    expect(row[p50]).toBe(String(clients.latency?.p50));
    expect(row[p99]).toBe(String(clients.latency?.p99));
    // An interleaving has steps, no per-request latency.
    const steps = rows.find((r) => r[0] === 'user-race/hot-row') ?? [];
    expect([steps[p50], steps[p99]]).toEqual(['-', '-']);
    expect(Number(steps[duration])).toBeGreaterThan(0);
  });
});

describe('the boundary table', () => {
  it('says in one cell per design what holds and where it breaks, by the same rule for every design', () => {
    const rows = new Map(report.boundary.map((r) => [r.strategy, r]));
    for (const row of report.boundary.filter((r) => r.expect === 'hold')) {
      const own = report.cases.filter((c) => c.strategy === row.strategy && isMeasured(c));
      expect(row.boundary, row.strategy).toMatch(
        new RegExp(`^holds: every invariant in \\d+ of ${own.length} cases; .* · breaks: `),
      );
      // The headline is the contention case, whatever case shows the boundary.
      expect(row.counts, row.strategy).toMatch(
        new RegExp(`^contention/${row.strategy}: HELD 40, SOLD_OUT 110; active 40/40`),
      );
      expect(row.holds).toContain(row.counts);
    }
    const hot = rows.get('hot-row');
    expect(hot?.breaks).toEqual([]);
    expect(hot?.boundary).toContain('breaks: none observed');
    expect(hot?.holds).toMatch(/^every invariant in 7 of 7 cases; /);
    expect(hot?.waits).toEqual({
      what: 'blocked, then completed: t2-take, t3-ask',
      shownBy: 'false-sold-out/hot-row',
      cases: 2,
    });
    expect(hot?.shownBy).toBe('false-sold-out/hot-row');

    const skip = rows.get('skip-locked-slots');
    expect(skip?.breaks).toEqual([
      {
        what: 'false sold-out: 1 SOLD_OUT while 1 unit(s) never sold',
        shownBy: 'false-sold-out/skip-locked-slots',
        cases: 1,
      },
    ]);
    expect(skip?.boundary).toContain(
      'breaks: false sold-out: 1 SOLD_OUT while 1 unit(s) never sold (false-sold-out/skip-locked-slots)',
    );

    expect(rows.get('check-then-act')?.boundary).toBe('caught: oversold 110 (contention/check-then-act)');
    expect(rows.get('split-tx-release')?.boundary).toBe(
      'caught: oversold 5 (crash-recovery/split-tx-release)',
    );
    expect(rows.get('no-active-index')?.boundary).toBe(
      'caught: duplicateActive 1 (user-race/no-active-index)',
    );

    // report.md shows the row in columns, one fact a line.
    const table = markdownTable(renderMarkdown(report), 'Boundary table');
    expect(table[0]).toEqual(BOUNDARY_COLUMNS);
    const cells = (design: string) => table.find((r) => r[0] === design) ?? [];
    expect(cells('hot-row').slice(3)).toEqual([
      '7 of 7',
      'none',
      '-',
      'false-sold-out: t2-take, t3-ask (2 cases)',
      '-',
    ]);
    expect(cells('skip-locked-slots')[5]).toBe('false-sold-out: 1');
    expect(cells('check-then-act').slice(3, 5)).toEqual(['control', '◆ contention: oversold 110']);
    expect(cells('no-active-index')[4]).toBe('◆ user-race: duplicateActive 1');
  });

  it('lists a boundary a scenario measures (lost acknowledgements) under breaks, with its case', async () => {
    const strategies = (await loadAllBuiltIn()).map((r) => r.strategy).filter((s) => s.id === 'hot-row');
    const clean = measured(report.cases, 'contention/hot-row');
    const lost: CaseResult = {
      ...clean,
      id: 'db-crash-async/hot-row',
      scenario: 'db-crash-async',
      headline: undefined,
      invariants: { ...clean.invariants, lostAcknowledged: 44 },
      boundaryNote: 'measured in db-crash-async: lostAcknowledged 44',
    };
    const [row] = boundaryRows([...report.cases, lost], strategies);
    expect(row?.breaks).toEqual([
      {
        what: 'measured in db-crash-async: lostAcknowledged 44',
        shownBy: 'db-crash-async/hot-row',
        cases: 1,
      },
    ]);
    expect(row?.holds).toMatch(/^every invariant in 7 of 8 cases; /);
    expect(row?.shownBy).toBe('db-crash-async/hot-row');
  });
});

describe('the terminal output', () => {
  const width = (text: string) =>
    Math.max(
      ...stripVTControlCharacters(text)
        .split('\n')
        .map((l) => [...l].length),
    );

  it(`fits ${TERMINAL_COLUMNS} columns: tables, case lines, notes; report.md keeps the wide tables`, () => {
    for (const r of [report, isolated]) {
      expect(width(renderTerminal(r))).toBeLessThanOrEqual(TERMINAL_COLUMNS);
      for (const c of r.cases)
        expect(width(caseLine(RESERVATION, c)), c.id).toBeLessThanOrEqual(TERMINAL_COLUMNS);
    }
    expect(isolated.isolation.length).toBeGreaterThan(0);
    expect(renderTerminal(isolated)).toContain('Isolation matrix');
    // The Markdown is not squeezed: one column per count, lines as wide as they need.
    const markdown = renderMarkdown(report);
    expect(width(markdown)).toBeGreaterThan(TERMINAL_COLUMNS);
    expect(markdownTable(markdown, 'Cases')[0]).toEqual(
      expect.arrayContaining(['dup active', 'ledger drift']),
    );
  });

  it('wraps a cell at spaces, else after a / or -, and never past its column', () => {
    expect(wrapText('contention/skip-locked-slots hold pass', 20)).toEqual([
      'contention/skip-',
      'locked-slots hold',
      'pass',
    ]);
    expect(wrapText('x'.repeat(25), 10)).toEqual(['xxxxxxxxxx', 'xxxxxxxxxx', 'xxxxx']);
    expect(wrapText('one two three four', 9, '  ')).toEqual(['one two', '  three', '  four']);
    const widths = fitWidths({
      headers: ['a', 'b', 'c'],
      rows: [['x'.repeat(200), 'short', 'y'.repeat(90)]],
    });
    expect(widths.reduce((a, b) => a + b, 0) + 4).toBe(TERMINAL_COLUMNS);
    expect(widths[1]).toBe('short'.length + 2);
  });
});
