/**
 * The one test that starts servers of another major: `run --postgres 15,18` through the real command line,
 * each version on its own embedded server (not the shared test server, which is the default major). Every
 * other test runs on 18 only; this small matrix shows the versions run, a design is n/a below its minimum
 * with the reason, and the report lays it out as design × version.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../harness/report/report.ts';
import { schemaErrors } from './report-schema-validator.ts';
import { type CliRun, runCli } from './run-cli.ts';

const ARGS = [
  'run',
  '--postgres',
  '15,18',
  '--strategy',
  'hot-row,coalesced',
  '--scenario',
  'contention,false-sold-out',
  '--explore-budget',
  '0',
  '--json',
];

let run: CliRun;
let report: Report;
const reports = mkdtempSync(join(tmpdir(), 'reservebench-reports-'));

beforeAll(async () => {
  run = await runCli([...ARGS, '--reports', reports]);
  report = JSON.parse(run.stdout) as Report;
}, 60_000);

afterAll(() => rmSync(reports, { recursive: true, force: true }));

const status = (id: string) => report.cases.find((c) => c.id === id)?.status;
const row = (strategy: string, major: string) =>
  report.versions.find((r) => r.strategy === strategy && r.postgres.startsWith(`${major}.`));

describe('run --postgres 15,18', () => {
  it('runs the suite on both majors and passes', () => {
    expect(run.code, run.stderr).toBe(0);
    expect(report.ok).toBe(true);
    expect(schemaErrors(report)).toEqual([]);
    expect(report.environment.postgres).toMatch(/^15\.\d+, 18\.\d+$/);
    expect(report.cases.map((c) => c.postgres)).not.toContain(undefined);
  });

  it('passes hot-row on both', () => {
    for (const major of ['15', '18']) {
      expect(status(`pg${major}/contention/hot-row`)).toBe('pass');
      expect(status(`pg${major}/false-sold-out/hot-row`)).toBe('pass');
      expect(row('hot-row', major)).toMatchObject({ status: 'pass', cases: 2 });
    }
  });

  it('makes coalesced n/a on 15 with the reason, and passes it on 18', () => {
    const onOld = report.cases.find((c) => c.id === 'pg15/contention/coalesced');
    expect(onOld).toMatchObject({
      status: 'n/a',
      reason: expect.stringMatching(/^needs PostgreSQL 18 \(RETURNING old\); the server is 15\.\d+$/),
    });
    expect(row('coalesced', '15')).toMatchObject({
      status: 'n/a',
      reason: expect.stringMatching(/RETURNING old/),
    });
    expect(status('pg18/contention/coalesced')).toBe('pass');
    expect(row('coalesced', '18')).toMatchObject({ status: 'pass', cases: 2 });
  });

  it('shows per version the steps the interleaving saw blocked', () => {
    expect(row('hot-row', '15')?.blocked).toEqual([expect.stringMatching(/^false-sold-out: /)]);
    expect(row('hot-row', '18')?.blocked).toEqual(row('hot-row', '15')?.blocked);
  });
});

describe('bench --postgres 15', () => {
  const bench = (args: string[]) =>
    runCli(['bench', '--postgres', '15', '--reports', reports, '--json', ...args]);

  it('benches a design on a 15 server, and says so in the environment', async () => {
    const quick = ['--clients', '1', '--trials', '1', '--warmup-ms', '0', '--duration-ms', '200'];
    const benched = await bench(['--strategy', 'hot-row', ...quick]);
    expect(benched.code, benched.stderr).toBe(0);
    const document = JSON.parse(benched.stdout) as { environment: { postgres: string } };
    expect(document.environment.postgres).toMatch(/^15\.\d+$/);
  }, 60_000);

  it('refuses, in one line, a design the server is too old for', async () => {
    const refused = await bench(['--strategy', 'coalesced', '--clients', '1']);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim()).toMatch(
      /^reservebench: cannot bench coalesced on this server: it needs PostgreSQL 18 \(RETURNING old\); the server is 15\.\d+$/,
    );
  }, 60_000);

  it('takes one major only', async () => {
    const refused = await runCli(['bench', '--postgres', '15,18', '--strategy', 'hot-row']);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/--postgres takes one major for a bench/);
  });
});

describe('serve --postgres 15', () => {
  it('refuses, in one line, to serve a design the server is too old for', async () => {
    const refused = await runCli(['serve', '--postgres', '15', '--strategy', 'coalesced', '--port', '0']);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim()).toMatch(
      /^reservebench: cannot serve coalesced on this server: it needs PostgreSQL 18 \(RETURNING old\); the server is 15\.\d+$/,
    );
  }, 60_000);
});
