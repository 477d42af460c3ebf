/**
 * WAIT <ms>: the step completes once the database's clock has passed `ms` from when the step started.
 * The clock is clock_timestamp() on the session's own connection (the one TTLs and expiry are judged
 * on), looked at every `pollMs`: the poll only says how often it is read again, the database's time
 * decides when the step completes.
 */
import { setTimeout as nextLook } from 'node:timers/promises';
import type { Session } from './session.ts';
import { failure, type Outcome, ok } from './step-outcome.ts';

export async function databaseClockPasses(
  session: Session,
  ms: number,
  look: { pollMs: number; timeoutMs: number },
): Promise<Outcome> {
  try {
    const { client } = session;
    const start = await client.query<{ at: string }>(
      'SELECT (clock_timestamp() + make_interval(secs => $1 / 1000.0))::text AS at',
      [ms],
    );
    const passAt = start.rows[0]?.at;
    // A clock that does not move (it cannot, short of a broken server) must not hold the run for ever.
    const deadline = performance.now() + ms + look.timeoutMs;
    for (;;) {
      const now = await client.query<{ passed: boolean }>(
        'SELECT clock_timestamp() > $1::timestamptz AS passed',
        [passAt],
      );
      if (now.rows[0]?.passed) return ok({ status: 'ok' });
      if (performance.now() > deadline)
        return failure(new Error(`the database clock did not pass +${ms} ms`));
      await nextLook(look.pollMs);
    }
  } catch (error: unknown) {
    return failure(session.lostWith() ?? error);
  }
}
