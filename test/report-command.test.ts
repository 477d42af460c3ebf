/**
 * `reservebench report`: the committed example reports read again with nothing rerun — the scorecard joins
 * the full run with the benches (one row per design: scenarios held, speed per client count, what durable
 * commits cost), every report is re-rendered beside it, and a file that is no report is refused with one line.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXAMPLE_REPORTS } from '../scripts/example-reports.ts';
import { runBounded } from './bounded-cli.ts';

const scratch = mkdtempSync(join(tmpdir(), 'reservebench-report-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const example = (name: string) => join(EXAMPLE_REPORTS, name, 'report.json');

describe('reservebench report', () => {
  it('joins a run and its benches in a scorecard, and re-renders each report', async () => {
    const reports = join(scratch, 'reports');
    const cli = await runBounded(
      ['report', example('run'), example('bench'), example('bench-durability'), '--reports', reports],
      { timeoutMs: 60_000 },
    );
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toContain('Matrix — reservations');
    expect(cli.stdout).toMatch(/│ hot-row +│ \d+ of \d+ +│ \d+ +│/);
    const folder = join(reports, 'latest-scorecard');
    const scorecard = readFileSync(join(folder, 'scorecard.md'), 'utf8');
    expect(scorecard).toMatch(/\| hot-row +\| \d+ of \d+ +\| △ db-crash-async: lostAcknowledged \d+/);
    expect(scorecard).toMatch(/\| hot-row .*\| ×0\.\d+ at 150 clients +\|/);
    for (const file of ['run/report.md', 'run/report.html', 'bench-1/report.html', 'bench-1/throughput.svg'])
      expect(readFileSync(join(folder, file), 'utf8').length, file).toBeGreaterThan(100);
    expect(readFileSync(join(folder, 'run/report.md'), 'utf8')).toBe(
      readFileSync(join(EXAMPLE_REPORTS, 'run', 'report.md'), 'utf8'),
    );
  });

  it('refuses a file that is no report, and a second run report, with one line (exit 2)', async () => {
    const notJson = await runBounded(['report', join(EXAMPLE_REPORTS, 'run', 'report.md')]);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/^reservebench: ".*report\.md" cannot be read as JSON: .*\n$/);
    const two = await runBounded(['report', example('run'), example('target')]);
    expect(two.code).toBe(2);
    expect(two.stderr).toBe('reservebench: report takes at most one run report, got 2\n');
  });
});
