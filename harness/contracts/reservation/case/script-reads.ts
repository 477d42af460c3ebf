/**
 * A script's reads and waits: remaining and status as the strategy's own state says, read now, and waits
 * on observed state (remaining coming down, the database's own clock passing), never on a sleep.
 */
import { setTimeout as nextLook } from 'node:timers/promises';
import type { ScriptContext } from './scenario.ts';
import type { ScriptScope } from './script-scope.ts';

export function scriptReads(
  scope: ScriptScope,
): Pick<ScriptContext, 'remaining' | 'status' | 'available' | 'remainingAtMost' | 'databaseClockPasses'> {
  const { db, params, timeoutMs, record } = scope;
  const { strategy } = scope.ref;
  const remaining = (sku: string) =>
    record.read({ what: 'remaining', target: sku }, () => strategy.remaining(db.admin, sku));
  return {
    remaining,
    status: (key) => record.read({ what: 'status', target: key }, () => strategy.status(db.admin, key)),
    async available() {
      let sum = 0;
      for (const { sku } of params.stock) sum += await remaining(sku);
      return sum;
    },
    async remainingAtMost(sku, units) {
      const deadline = performance.now() + timeoutMs;
      while ((await remaining(sku)) > units) {
        if (performance.now() > deadline) throw new Error(`remaining(${sku}) never came down to ${units}`);
        await nextLook(5);
      }
    },
    databaseClockPasses: (ms) =>
      record.databaseClockPasses(ms, async (waitMs) => {
        const { rows } = await db.admin.query<{ at: Date }>(
          'SELECT clock_timestamp() + make_interval(secs => $1 / 1000.0) AS at',
          [waitMs],
        );
        const passAt = rows[0]?.at;
        const deadline = performance.now() + timeoutMs;
        // Polling only looks at the clock; the database's own time decides when the hold has expired.
        for (;;) {
          const now = await db.admin.query<{ passed: boolean }>('SELECT clock_timestamp() > $1 AS passed', [
            passAt,
          ]);
          if (now.rows[0]?.passed) return;
          if (performance.now() > deadline) throw new Error(`the database clock did not pass +${ms} ms`);
          await nextLook(5);
        }
      }),
  };
}
