/**
 * `run --jobs`: the same cases alone (`--jobs 1`) and side by side (`--jobs 4`) give the same report, case
 * by case — verdict, counts, the check that fired — in the same order; an interleaving's blocking and a
 * crash child's kill included. `--jobs` refuses a count outside 1–16 before anything starts.
 */
import { describe, expect, inject, it } from 'vitest';
import type { Report } from '../harness/report/report.ts';
import { runCli, runJson } from './run-cli.ts';

const serverUrl = inject('serverUrl');

const SELECTION = [
  '--scenario',
  'false-sold-out,user-race,key-reuse,backend-killed,duplicate-key,crash-recovery',
  '--strategy',
  'hot-row,skip-locked-slots,memory-quota,check-then-act,split-tx-release',
];

/** What a case's verdict is made of, without its timings. */
function verdicts(report: Report) {
  return report.cases.map((c) => ({
    id: c.id,
    status: c.status,
    ...('fired' in c
      ? {
          outcomes: c.outcomes,
          fired: c.fired,
          problems: c.problems,
          blocked: c.steps?.filter((s) => s.blocked).map((s) => s.step),
        }
      : {}),
  }));
}

describe('run --jobs', () => {
  it('gives every case the same verdict alone as side by side', { timeout: 300_000 }, async () => {
    const alone = await runJson(serverUrl, [...SELECTION, '--jobs', '1']);
    const beside = await runJson(serverUrl, [...SELECTION, '--jobs', '4']);
    expect(alone.run.code).toBe(0);
    expect(beside.run.code).toBe(0);
    expect(alone.report.cases.filter((c) => c.status === 'pass')).toHaveLength(18);
    expect(verdicts(beside.report)).toEqual(verdicts(alone.report));
  });

  it('refuses a count outside 1–16 with one line, exit 2', async () => {
    for (const bad of ['0', '17', 'two']) {
      const run = await runCli(['run', '--jobs', bad]);
      expect(run.code).toBe(2);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(/--jobs/);
    }
  });
});
