/**
 * A bench measures designs on one server: one that cannot run there (older than its `minPostgres`, or a
 * capability it needs refused by the probe) is refused before any series, in one line, as `run` makes its
 * cases n/a for the same reasons — a bench has no n/a series to show instead. The reasons are each
 * design's contract's (BenchDesign.refusal).
 */
import type { BenchDesign } from '../contract/bench-series.ts';
import type { RunDatabase } from '../database/database.ts';
import { Errors } from '../errors.ts';

export function refuseUnbenchable(
  designs: readonly Pick<BenchDesign, 'id' | 'refusal'>[],
  db: Pick<RunDatabase, 'serverVersionNum' | 'capabilities'>,
): void {
  for (const design of designs) {
    const why = design.refusal?.(db);
    if (why) throw Errors.badInput(`cannot bench ${design.id} on this server: it ${why}`);
  }
}
