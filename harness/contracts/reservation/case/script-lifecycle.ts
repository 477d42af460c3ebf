/**
 * A script's lifecycle operations: the strategy's confirm, release, expire and disable on a session, and
 * its backdate hook on the admin connection — or, for a design without the hook, real time on the
 * database clock past holds sent short; the case records what each one moved.
 */
import type { Strategy } from '../../../../strategies/contract.ts';
import type { ScriptContext } from './scenario.ts';
import { scriptReads } from './script-reads.ts';
import type { ScriptScope } from './script-scope.ts';

/** The case never starts a scenario whose operations the strategy lacks (applicability.ts); this guards one that forgot to declare. */
function missing(strategy: Strategy, operation: string): Error {
  return new Error(`the scenario calls ${operation}, which ${strategy.id} does not implement`);
}

/** The longest a short hold may last: backdate without the hook waits it out. */
const LONGEST_SHORT_HOLD_MS = 30_000;

export function scriptLifecycle(
  scope: ScriptScope,
): Pick<ScriptContext, 'confirm' | 'release' | 'expire' | 'disable' | 'backdate' | 'shortHolds'> {
  const { db, record } = scope;
  const { strategy } = scope.ref;
  /** The ttl each short hold was sent with, for a design without the backdate hook. */
  const shortTtl = new Map<string, number>();
  const waitOut = scriptReads(scope).databaseClockPasses;
  return {
    shortHolds(requests, ttlMs) {
      if (strategy.backdate) return requests;
      if (ttlMs > LONGEST_SHORT_HOLD_MS) throw new Error(`a short hold of ${ttlMs} ms is not short`);
      for (const r of requests) shortTtl.set(r.requestKey, ttlMs);
      return requests.map((r) => ({ ...r, ttlMs }));
    },
    confirm: (session, key) =>
      record.lifecycle('confirm', key, () => {
        if (!strategy.confirm) throw missing(strategy, 'confirm');
        return strategy.confirm(session, key);
      }),
    release: (session, key) =>
      record.lifecycle('release', key, () => {
        if (!strategy.release) throw missing(strategy, 'release');
        return strategy.release(session, key);
      }),
    disable: (session, sku) =>
      record.lifecycle('disable', sku, () => {
        if (!strategy.disable) throw missing(strategy, 'disable');
        return strategy.disable(session, sku);
      }),
    expire: (session) =>
      record.lifecycle('expire', undefined, () => {
        if (!strategy.expire) throw missing(strategy, 'expire');
        return strategy.expire(session);
      }),
    async backdate(keys) {
      // Without the hook, time passes instead: the holds were sent short (shortHolds), and the database
      // clock is let pass the longest of them, observed. Expiry is judged on that clock either way.
      if (!strategy.backdate) {
        const ttls = keys.map((key) => shortTtl.get(key));
        const unknown = keys.filter((_, i) => ttls[i] === undefined);
        if (unknown.length > 0)
          throw new Error(
            `${strategy.id} has no backdate hook and ${unknown.join(', ')} were not sent as short holds`,
          );
        return waitOut(Math.max(...ttls.map((t) => t ?? 0)));
      }
      await record.lifecycle('backdate', keys, async () => {
        if (!strategy.backdate) throw new Error(`${strategy.id} has no backdate hook`);
        await strategy.backdate(db.admin, keys);
        // The hook answers nothing; the case counts the keys it backdated.
        return undefined;
      });
    },
  };
}
