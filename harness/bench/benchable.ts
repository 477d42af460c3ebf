/**
 * A bench measures designs on one server: one that cannot run there (older than its `minPostgres`, or a
 * capability it needs refused by the probe) is refused before any series, in one line, as `run` makes its
 * cases n/a for the same reasons (scenario/applicability.ts) — a bench has no n/a series to show instead.
 */
import type { StrategyRef } from '../../strategies/contract.ts';
import { refusedNeed } from '../case/applicability.ts';
import type { RunDatabase } from '../database/database.ts';
import { belowMinimum } from '../database/postgres-minimum.ts';
import { Errors } from '../errors.ts';
import type { PaymentDesignRef } from '../registry/payment-registry.ts';
import { caseNeeds } from '../scenario/capability-needs.ts';

export function refuseUnbenchable(
  strategies: readonly StrategyRef[],
  db: Pick<RunDatabase, 'serverVersionNum' | 'capabilities'>,
): void {
  for (const { strategy } of strategies) {
    const why =
      belowMinimum(strategy, db.serverVersionNum) ??
      refusedNeed(caseNeeds(strategy, undefined, undefined), db.capabilities);
    if (why) throw Errors.badInput(`cannot bench ${strategy.id} on this server: it ${why}`);
  }
}

/** A payment design needing a capability the server refused (payment-serializable: SSI), likewise. */
export function refuseUnbenchablePayments(
  payments: readonly PaymentDesignRef[],
  db: Pick<RunDatabase, 'capabilities'>,
): void {
  for (const { design } of payments) {
    const why = refusedNeed(design.needs ?? [], db.capabilities);
    if (why) throw Errors.badInput(`cannot bench ${design.id} on this server: it ${why}`);
  }
}
