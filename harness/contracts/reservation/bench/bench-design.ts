/**
 * A reservation strategy's bench series (harness/bench/): its clients reserve a unit each request with a
 * fresh key and user (bench-sender.ts), HELD answers are counted, and the harness's audit of a trial holds
 * the stock against them: what the design says remains plus every HELD answer is the stock it was given.
 */
import type { StrategyRef } from '../../../../strategies/contract.ts';
import { refusedNeed } from '../../../case/applicability.ts';
import { BENCH_SKU, type DesignSeries } from '../../../contract/bench-series.ts';
import type { ContractBench } from '../../../contract/contract.ts';
import { belowMinimum } from '../../../database/postgres-minimum.ts';
import { caseNeeds } from '../case/capability-needs.ts';
import { checkSqlDesignsInstall } from '../designs/sql-design-check.ts';
import { measureUncontended } from './uncontended.ts';

const SENDER = new URL('./bench-sender.ts', import.meta.url).href;

/** A reservation strategy's series: every HELD answer against what the design says remains. */
function reservationSeries(ref: StrategyRef): DesignSeries {
  const { strategy } = ref;
  return {
    counted: 'HELD',
    sender: SENDER,
    refusal: (db) =>
      belowMinimum(strategy, db.serverVersionNum) ??
      refusedNeed(caseNeeds(strategy, undefined, undefined), db.capabilities),
    install: (admin) => checkSqlDesignsInstall(admin, [ref]),
    setup: (db, stock) => strategy.setup(db, [{ sku: BENCH_SKU, total: stock }]),
    audit: async (db, stock, totals) => {
      const remaining = await strategy.remaining(db, BENCH_SKU);
      const drift = stock - remaining - totals.counted;
      const oversold = Math.max(0, totals.counted - stock);
      const problems = [
        ...(drift !== 0 ? [`drift ${drift}`] : []),
        ...(oversold > 0 ? [`oversold ${oversold}`] : []),
        ...(totals.outcomes.SOLD_OUT
          ? [`stock ran out (${totals.outcomes.SOLD_OUT} SOLD_OUT): raise --stock`]
          : []),
      ];
      return { drift, oversold, problems };
    },
    uncontended: (db, stock) => measureUncontended(db, ref, stock, BENCH_SKU),
  };
}

/** The reservation contract's bench series (ContractBench). */
export const RESERVATION_BENCH = {
  unit: 'reservations/s',
  shortUnit: 'res/s',
  note: [
    'Throughput is HELD answers per second in the measured window; latency per request in ms (HDR histogram),',
  ],
  ok: 'every series ran and kept drift 0',
  design: reservationSeries,
} satisfies ContractBench<StrategyRef>;
