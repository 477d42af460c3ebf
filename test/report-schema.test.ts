/**
 * The report documents have one definition each (zod, harness/report/*-schema.ts): the TypeScript types
 * are the ones it infers (or held equal to it), every report is checked against it when written, and the
 * committed JSON Schemas in docs/ are generated from it. Real reports — a run with every kind of case, a
 * bench — are validated against the committed files with ajv, an independent validator.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, inject, it } from 'vitest';
import type { BoundaryRow } from '../harness/contracts/reservation/report/boundary.ts';
import type { CoverageRow } from '../harness/contracts/reservation/report/coverage.ts';
import type { IsolationRow } from '../harness/contracts/reservation/report/isolation-matrix.ts';
import type { CaseResult, PassedCase } from '../harness/contracts/reservation/verdict/case-result.ts';
import type { Environment } from '../harness/database/environment.ts';
import type { BenchReport } from '../harness/report/bench/bench-report.ts';
import { type BenchReportDocument, benchReportSchema } from '../harness/report/bench-report-schema.ts';
import { checkedReport, type Report, reportSchema } from '../harness/report/report-schema.ts';
import { SCHEMA_FILES } from '../harness/report/schema-files.ts';
import { schemaErrors } from './report-schema-validator.ts';
import { runCli } from './run-cli.ts';

const serverUrl = inject('serverUrl');
const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');

describe('the JSON Schema files', () => {
  it('are what the zod definitions generate (npx tsx scripts/report-schema.ts rewrites them)', () => {
    for (const file of SCHEMA_FILES) {
      expect(
        JSON.parse(read(file.path)),
        `${file.path} is stale: run npx tsx scripts/report-schema.ts`,
      ).toEqual(file.schema());
    }
  });

  it('give the types the harness uses (checked by tsc)', () => {
    expectTypeOf<Report['cases'][number]>().toEqualTypeOf<CaseResult>();
    expectTypeOf<Report['boundary'][number]>().toEqualTypeOf<BoundaryRow>();
    expectTypeOf<Report['coverage'][number]>().toEqualTypeOf<CoverageRow>();
    expectTypeOf<Report['isolation'][number]>().toEqualTypeOf<IsolationRow>();
    expectTypeOf<Report['environment']>().toEqualTypeOf<Environment>();
    expectTypeOf<BenchReportDocument>().toEqualTypeOf<BenchReport>();
  });
});

describe('reports checked against their schema', () => {
  let report: Report;

  it('a run with passing, failing, n/a and broken cases writes report.json that matches docs/report.schema.json', async () => {
    const reports = mkdtempSync(join(tmpdir(), 'reservebench-schema-'));
    try {
      const run = await runCli(
        [
          'run',
          '--json',
          '--reports',
          reports,
          '--strategy',
          'hot-row,check-then-act,test/fixtures/oversell-declared-safe.ts,test/fixtures/never-answers.ts',
          '--scenario',
          'contention-30-2,user-race,expiry',
          '--timeout-ms',
          '1000',
        ],
        { DATABASE_URL: serverUrl },
      );
      expect(run.code, run.stderr).toBe(1);
      report = JSON.parse(run.stdout) as Report;
      const stamp = readdirSync(reports).find((d) => d !== 'latest') ?? '';
      const written = JSON.parse(readFileSync(join(reports, stamp, 'report.json'), 'utf8')) as unknown;
      expect(written).toEqual(report);
    } finally {
      rmSync(reports, { recursive: true, force: true });
    }
    const statuses = new Set(report.cases.map((c) => c.status));
    expect([...statuses].sort()).toEqual(['broken', 'fail', 'n/a', 'pass']);
    expect(report.cases.some((c) => 'steps' in c && c.steps)).toBe(true);
    expect(report.cases.some((c) => 'observations' in c && c.observations)).toBe(true);
    // The isolation-matrix chapter's manifest: which code ran, every design (a plug-in too) and scenario, and
    // the client.
    const sources = report.sources ?? [];
    expect(sources.map((s) => `${s.kind} ${s.id}`).sort()).toEqual([
      'design check-then-act',
      'design hot-row',
      'design never-answers',
      'design oversell-declared-safe',
      'scenario contention-30-2',
      'scenario expiry',
      'scenario user-race',
    ]);
    const hotRow = sources.find((s) => s.id === 'hot-row');
    expect(hotRow?.file).toBe('strategies/hot-row.ts');
    expect(hotRow?.files).toContain('strategies/support/begin-with.ts');
    expect(sources.find((s) => s.id === 'oversell-declared-safe')?.file).toBe(
      'test/fixtures/oversell-declared-safe.ts',
    );
    expect(report.environment.client?.pg).toMatch(/^\d+\.\d+\.\d+$/);
    expect(schemaErrors(report)).toEqual([]);
    expect(reportSchema.safeParse(report).success).toBe(true);
  });

  it('rejects what is not the document, with the committed file and at write time alike', () => {
    const passed = (r: Report) => r.cases.find((c) => c.status === 'pass') as PassedCase;
    const variants: [string, (r: Report) => void][] = [
      ['a field nobody documented', (r) => Object.assign(passed(r), { surprise: 1 })],
      ['a measured case without its phases', (r) => delete (passed(r) as Partial<PassedCase>).phases],
      [
        'a negative count in a phase',
        (r) => {
          passed(r).phases = [{ label: 'reserve', outcomes: { HELD: -1 } }];
        },
      ],
      ['an unknown status', (r) => Object.assign(passed(r), { status: 'maybe' })],
      ['a boundary row without what holds', (r) => delete (r.boundary[0] as Partial<BoundaryRow>).holds],
    ];
    for (const [what, spoil] of variants) {
      const bad = structuredClone(report);
      spoil(bad);
      expect(schemaErrors(bad), what).not.toEqual([]);
      expect(() => checkedReport(bad), what).toThrow(/does not match its schema/);
    }
    expect(checkedReport(report)).toBe(report);
  });

  it('a bench report (bench --json) matches docs/bench-report.schema.json, as does the committed example', async () => {
    const reports = mkdtempSync(join(tmpdir(), 'reservebench-schema-bench-'));
    try {
      const run = await runCli(
        [
          'bench',
          '--json',
          '--strategy',
          'hot-row',
          '--clients',
          '2',
          '--admission',
          '2:4',
          '--trials',
          '2',
          '--warmup-ms',
          '100',
          '--duration-ms',
          '200',
          '--stock',
          '20000',
          '--reports',
          reports,
        ],
        { DATABASE_URL: serverUrl },
      );
      expect(run.code, run.stderr).toBe(0);
      const bench = JSON.parse(run.stdout) as unknown;
      expect(schemaErrors(bench, 'docs/bench-report.schema.json')).toEqual([]);
      expect(benchReportSchema.safeParse(bench).success).toBe(true);
      const { sources } = bench as { sources?: { kind: string; id: string; file: string }[] };
      expect(sources?.map((s) => [s.kind, s.id, s.file])).toEqual([
        ['design', 'hot-row', 'strategies/hot-row.ts'],
      ]);
      const spoiled = structuredClone(bench) as { bench: { trials: unknown[] }[] };
      spoiled.bench[0]?.trials.push({ trial: 0 });
      expect(schemaErrors(spoiled, 'docs/bench-report.schema.json')).not.toEqual([]);
    } finally {
      rmSync(reports, { recursive: true, force: true });
    }
    const example = JSON.parse(read('reports/examples/bench/report.json')) as unknown;
    expect(schemaErrors(example, 'docs/bench-report.schema.json')).toEqual([]);
  });

  it('hold for the reviewed examples (npm run examples refreshes them after a change of shape)', () => {
    for (const example of ['reports/examples/run/report.json', 'reports/examples/target/report.json']) {
      expect(schemaErrors(JSON.parse(read(example)) as unknown), example).toEqual([]);
    }
  });
});

describe('docs/reports.md', () => {
  const page = read('docs/reports.md');
  const section = page.slice(page.indexOf('## JSON report'));

  it('points to the schema, and its JSON example is a whole report that matches it', () => {
    expect(section).toContain('docs/report.schema.json');
    const block = /```json\n([\s\S]*?)\n```/.exec(section)?.[1];
    expect(block).toBeDefined();
    const example = JSON.parse(block ?? '') as Report;
    expect(schemaErrors(example)).toEqual([]);
    // What the embedded server really runs with, as the environment section records it.
    expect(example.environment).toMatchObject({
      database: 'embedded',
      settings: { synchronous_commit: 'on' },
    });
  });
});
