/**
 * The suite fails clean: an operation that never answers fails its case with one line and the run goes on
 * (issue: no hangs).
 */
import { describe, expect, inject, it } from 'vitest';
import { runJson } from './run-cli.ts';

const serverUrl = inject('serverUrl');

describe('a strategy that never answers', () => {
  it('fails the request (clients), the case (phases) and the hold (barrier) within the deadline, then goes on', async () => {
    const { run, report } = await runJson(serverUrl, [
      '--strategy',
      'test/fixtures/never-answers.ts,hot-row',
      '--scenario',
      'user-limit,expiry',
      '--timeout-ms',
      '1000',
    ]);
    expect(run.code).toBe(1);
    const byId = new Map(report.cases.map((c) => [c.id, c]));
    const limit = byId.get('user-limit/never-answers');
    expect(limit).toMatchObject({ status: 'fail', outcomes: { HELD: 1, USER_LIMIT: 6, ERROR: 1 } });
    expect(limit && 'problems' in limit ? limit.problems.join(' ') : '').toMatch(/no answer within 2 s/);
    const expiry = byId.get('expiry/never-answers');
    expect(expiry).toMatchObject({ status: 'broken' });
    expect(expiry && 'problems' in expiry ? expiry.problems[0] : '').toMatch(/did not finish within 5 s/);
    // The run went on: the next cases were measured and passed.
    expect(byId.get('user-limit/hot-row')?.status).toBe('pass');
    expect(byId.get('expiry/hot-row')?.status).toBe('pass');
  });
});
