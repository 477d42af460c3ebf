/**
 * A script's lifecycle operations: the strategy's confirm, release, expire and disable on a session, and
 * its backdate hook on the admin connection; the case records what each one moved.
 */
import type { Strategy } from '../../strategies/contract.ts';
import type { ScriptContext } from './scenario.ts';
import type { ScriptScope } from './script-scope.ts';

/** The case never starts a scenario whose operations the strategy lacks (applicability.ts); this guards one that forgot to declare. */
function missing(strategy: Strategy, operation: string): Error {
  return new Error(`the scenario calls ${operation}, which ${strategy.id} does not implement`);
}

export function scriptLifecycle(
  scope: ScriptScope,
): Pick<ScriptContext, 'confirm' | 'release' | 'expire' | 'disable' | 'backdate'> {
  const { db, record } = scope;
  const { strategy } = scope.ref;
  return {
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
      await record.lifecycle('backdate', keys, async () => {
        if (!strategy.backdate) throw new Error(`${strategy.id} has no backdate hook`);
        await strategy.backdate(db.admin, keys);
        // The hook answers nothing; the case counts the keys it backdated.
        return undefined;
      });
    },
  };
}
