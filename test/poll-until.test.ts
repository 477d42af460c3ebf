/**
 * The one wait on observed state: what a look returns ends it, a deadline ends it, a throw ends it; a wake
 * brings the next look forward.
 */
import { describe, expect, it } from 'vitest';
import { pollUntil, waitUntil } from '../harness/database/poll-until.ts';

describe('pollUntil', () => {
  it('returns what a look finds, looking again while it finds nothing', async () => {
    let looks = 0;
    const found = await pollUntil(async () => (++looks >= 3 ? 'there' : undefined), {
      timeoutMs: 60_000,
      everyMs: 1,
    });
    expect([found, looks]).toEqual(['there', 3]);
  });

  it('looks once with no time to wait, and gives undefined when nothing was seen', async () => {
    let looks = 0;
    const found = await pollUntil(async () => ++looks > 1, { timeoutMs: 0, everyMs: 1 });
    expect([found, looks]).toEqual([undefined, 1]);
  });

  it('looks again at once when `wake` settles, not after its pause', async () => {
    let arrived = false;
    let arrive: () => void = () => undefined;
    const wake = new Promise<void>((resolve) => {
      arrive = () => {
        arrived = true;
        resolve();
      };
    });
    let looks = 0;
    const look = async () => {
      looks += 1;
      if (looks === 1) queueMicrotask(arrive);
      return arrived && 'there';
    };
    // A pause of an hour: only the wake can bring the second look within the test's own timeout.
    const found = await pollUntil(look, { timeoutMs: 7_200_000, everyMs: 3_600_000, wake });
    expect([found, looks]).toEqual(['there', 2]);
  });

  it('ends with the error of a look that throws', async () => {
    const look = async (): Promise<boolean> => {
      throw new Error('the server went away');
    };
    await expect(pollUntil(look, { timeoutMs: 60_000, everyMs: 1 })).rejects.toThrow('the server went away');
  });
});

describe('waitUntil', () => {
  it('counts a failing look as not seen, and names what it waited for at the deadline', async () => {
    const look = async (): Promise<boolean> => {
      throw new Error('not up yet');
    };
    await expect(waitUntil('the member taking writes', 20, look, 1)).rejects.toThrow(
      'the member taking writes: not seen within 20 ms',
    );
  });
});
