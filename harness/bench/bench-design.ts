/**
 * What a bench series measures, whichever contract: a reservation strategy (its clients reserve, HELD
 * answers counted, the stock audited) or a payment design (clients pay keys in pairs, CREATED answers
 * counted, every key paid once: payment-bench.ts). The series loop, trials and report are the same.
 */
import type { ClientBase } from 'pg';
import type { StrategyRef } from '../../strategies/contract.ts';
import type { BenchContract, BenchThreadResult } from './bench-task.ts';

export const BENCH_SKU = 'sku-bench-01';

/** What the audit reads of a trial's counts, summed over every client wherever it ran. */
export type BenchCounted = Pick<BenchThreadResult, 'heldTotal' | 'outcomes' | 'payments'>;

/** The harness's audit of a trial: drift and oversold are the stock's (0 in a payment series). */
export interface BenchAudit {
  drift: number;
  oversold: number;
  problems: string[];
}

export interface BenchDesign {
  contract: BenchContract;
  id: string;
  /** How worker threads import it (a variant's knobs in the fragment). */
  moduleUrl: string;
  /** The answer throughput counts: a unit held, a payment made. */
  counted: 'HELD' | 'CREATED';
  setup(db: ClientBase, stock: number): Promise<void>;
  audit(db: ClientBase, stock: number, counted: BenchCounted): Promise<BenchAudit>;
}

/** A reservation strategy's series: every HELD answer against what the design says remains. */
export function reservationBenchDesign(ref: StrategyRef): BenchDesign {
  const { strategy } = ref;
  return {
    contract: 'reservation',
    id: strategy.id,
    moduleUrl: ref.moduleUrl,
    counted: 'HELD',
    setup: (db, stock) => strategy.setup(db, [{ sku: BENCH_SKU, total: stock }]),
    audit: async (db, stock, merged) => {
      const remaining = await strategy.remaining(db, BENCH_SKU);
      const drift = stock - remaining - merged.heldTotal;
      const oversold = Math.max(0, merged.heldTotal - stock);
      const problems = [
        ...(drift !== 0 ? [`drift ${drift}`] : []),
        ...(oversold > 0 ? [`oversold ${oversold}`] : []),
        ...(merged.outcomes.SOLD_OUT
          ? [`stock ran out (${merged.outcomes.SOLD_OUT} SOLD_OUT): raise --stock`]
          : []),
      ];
      return { drift, oversold, problems };
    },
  };
}
