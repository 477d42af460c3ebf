/**
 * The reserve of the negative controls async-commit and local-commit: hot-row's claim and unit in one
 * transaction, committed with `synchronous_commit` lowered for that transaction alone (SET LOCAL). The
 * level is all that tells them apart — what HELD is acknowledged after; each control's header says what
 * its level gets wrong and which fault catches it.
 */
import type { ReserveResult, Strategy } from '../contract.ts';
import { claimRequestKey } from './reservation-table.ts';
import { takeUnitOrRollBackClaim } from './stock-and-reservation.ts';
import { inTransaction } from './transaction.ts';

/** `off`: acknowledged before the WAL is flushed; `local`: flushed on the primary, not yet on its standby. */
export type CommitLevel = 'off' | 'local';

const SET_LEVEL: Readonly<Record<CommitLevel, string>> = {
  off: 'SET LOCAL synchronous_commit = off',
  local: 'SET LOCAL synchronous_commit = local',
};

/** A reserve whose transaction commits at `level`. */
export function reserveCommittingAt(level: CommitLevel): Strategy['reserve'] {
  return (ctx, request) =>
    inTransaction(ctx.db, async (): Promise<ReserveResult> => {
      await ctx.db.query(SET_LEVEL[level]);
      const claim = await claimRequestKey(ctx.db, request);
      if (claim !== 'claimed') return claim;
      await ctx.pause('after-read');
      const unit = await takeUnitOrRollBackClaim(ctx.db, request.sku);
      if (unit !== 'taken') return unit;
      await ctx.pause('before-commit');
      return { outcome: 'HELD', status: 'HELD' };
    });
}
