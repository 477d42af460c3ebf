/**
 * A case's deadline does not count the time its clients wait for the worker threads (ClientPool.drive
 * pauses it): else a case beside a slow one, or on a slow machine, breaks for time that was not its own.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CaseDeadline } from '../harness/case/case-deadline.ts';

const TIMEOUT_MS = 1000;
/** The whole case's time: five barrier timeouts. */
const CASE_MS = 5 * TIMEOUT_MS;

function watch(deadline: CaseDeadline) {
  const seen = { expired: false };
  deadline.expired.catch(() => {
    seen.expired = true;
  });
  return seen;
}

describe('CaseDeadline', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('expires after five barrier timeouts of running time', async () => {
    const seen = watch(new CaseDeadline(TIMEOUT_MS));
    await vi.advanceTimersByTimeAsync(CASE_MS - 1);
    expect(seen.expired).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(seen.expired).toBe(true);
  });

  it('does not run while paused, however long, and goes on with what was left', async () => {
    const deadline = new CaseDeadline(TIMEOUT_MS);
    const seen = watch(deadline);
    await vi.advanceTimersByTimeAsync(CASE_MS - 1000);
    deadline.pause();
    await vi.advanceTimersByTimeAsync(5 * CASE_MS);
    expect(seen.expired).toBe(false);
    deadline.resume();
    await vi.advanceTimersByTimeAsync(999);
    expect(seen.expired).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(seen.expired).toBe(true);
  });

  it('expires after ten of its deadlines in all, however long it was paused (a drive ahead that never ends)', async () => {
    const deadline = new CaseDeadline(TIMEOUT_MS);
    let reason = '';
    deadline.expired.catch((error: unknown) => {
      reason = String(error);
    });
    deadline.pause();
    await vi.advanceTimersByTimeAsync(10 * CASE_MS - 1);
    expect(reason).toBe('');
    await vi.advanceTimersByTimeAsync(1);
    expect(reason).toMatch(/did not finish within 50 s with its waits for the worker threads/);
  });

  it('stays paused until every pause is resumed, and never expires once stopped', async () => {
    const deadline = new CaseDeadline(TIMEOUT_MS);
    const seen = watch(deadline);
    deadline.pause();
    deadline.pause();
    deadline.resume();
    await vi.advanceTimersByTimeAsync(2 * CASE_MS);
    expect(seen.expired).toBe(false);
    deadline.resume();
    deadline.stop();
    deadline.pause();
    deadline.resume();
    await vi.advanceTimersByTimeAsync(20 * CASE_MS);
    expect(seen.expired).toBe(false);
  });
});
