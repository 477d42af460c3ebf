/**
 * `run --isolation`: every case at each level; a level the design does not claim is measured, not judged,
 * and the matrix shows the boundary (hot-row relies on READ COMMITTED's re-check: at REPEATABLE READ its
 * concurrent decrements fail with 40001).
 */
import { describe, expect, inject, it } from 'vitest';
import { measured, runCli, runJson } from './run-cli.ts';

const serverUrl = inject('serverUrl');

describe('the isolation matrix', () => {
  it("measures hot-row's READ COMMITTED dependence at REPEATABLE READ without failing the run", async () => {
    const { run, report } = await runJson(serverUrl, [
      '--strategy',
      'hot-row',
      '--scenario',
      'contention',
      '--isolation',
      'read-committed,repeatable-read',
    ]);
    expect(run.code).toBe(0);
    const claimed = measured(report.cases, 'contention/hot-row@read-committed');
    expect(claimed).toMatchObject({ expect: 'hold', status: 'pass', isolation: 'read-committed' });
    const beyond = measured(report.cases, 'contention/hot-row@repeatable-read');
    expect(beyond).toMatchObject({ expect: 'measure', status: 'fail', isolation: 'repeatable-read' });
    expect(beyond.sqlstates?.['40001']).toBeGreaterThan(0);
    expect(beyond.invariants).toMatchObject({ oversold: 0, drift: 0 });
    expect(report.isolation).toEqual([
      expect.objectContaining({ strategy: 'hot-row', level: 'read-committed', claim: 'claimed', held: true }),
      expect.objectContaining({
        strategy: 'hot-row',
        level: 'repeatable-read',
        claim: 'measured',
        held: false,
        broke: expect.arrayContaining(['errors']),
        sqlstates: { '40001': beyond.sqlstates?.['40001'] },
        shownBy: 'contention/hot-row@repeatable-read',
      }),
    ]);
  });

  it('refuses an unknown level with one line (exit 2)', async () => {
    const bad = await runCli(['run', '--isolation', 'snapshot'], { DATABASE_URL: serverUrl });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /unknown isolation level "snapshot"; choose from: read-committed, repeatable-read, serializable/,
    );
  });
});
