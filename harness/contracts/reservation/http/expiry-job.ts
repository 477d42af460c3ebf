/**
 * The service's expiry job: every `everyMs` it runs the strategy's `expire` on a connection of its own (not
 * through the gates, so a full queue never starves it and it never takes a permit from a client), and a
 * hold's `ttl_ms` really ends it. Runs never overlap: the next wait starts only once the previous run has
 * ended (a chain of timers, not an interval). `stop()` cancels the wait and resolves once a run in progress
 * has ended, so the service closes its pools only after the job is done with them.
 */
import { setTimeout as pause } from 'node:timers/promises';
import type pg from 'pg';
import type { NodeIdentity, Strategy } from '../../../../strategies/contract.ts';
import { oneLine } from '../../../errors.ts';

export interface ExpiryCounters {
  /** The period asked for, in ms; 0 turns the job off. */
  everyMs: number;
  /** False when `everyMs` is 0 or the strategy has no `expire`. */
  enabled: boolean;
  /** Runs that ended, failed ones included. */
  runs: number;
  /** Units the runs gave back (what `expire` returned). */
  units: number;
  /** Runs that failed (the strategy threw, or returned something other than a whole number ≥ 0). */
  errors: number;
  lastError: string | null;
}

/** One ended run, for the metrics: units returned, or the failure. */
export type ExpiryRun = { seconds: number; units: number } | { seconds: number; error: string };

export interface ExpiryJob {
  counters(): ExpiryCounters;
  stop(): Promise<void>;
}

export function startExpiryJob(options: {
  strategy: Strategy;
  everyMs: number;
  pool: pg.Pool;
  node: NodeIdentity;
  ended?: (run: ExpiryRun) => void;
}): ExpiryJob {
  const { strategy, everyMs, pool } = options;
  const enabled = everyMs > 0 && typeof strategy.expire === 'function';
  const counters: ExpiryCounters = { everyMs, enabled, runs: 0, units: 0, errors: 0, lastError: null };
  const stopping = new AbortController();

  const runOnce = async (): Promise<void> => {
    const began = performance.now();
    let outcome: { units: number } | { error: string };
    const client = await pool.connect().catch((error: unknown) => error as Error);
    if (client instanceof Error) {
      outcome = { error: oneLine(client) };
    } else {
      let failed = false;
      try {
        const units: unknown = await strategy.expire?.({
          db: client,
          pause: async () => undefined,
          pausesAt: () => false,
          node: options.node,
        });
        outcome =
          Number.isSafeInteger(units) && (units as number) >= 0
            ? { units: units as number }
            : { error: `expire returned ${JSON.stringify(units) ?? String(units)}, not a whole number ≥ 0` };
      } catch (error: unknown) {
        failed = true;
        outcome = { error: oneLine(error).replace(/\s+/g, ' ') };
      } finally {
        // A connection whose statement failed may sit in an aborted transaction: dropped, not reused.
        client.release(failed);
      }
    }
    counters.runs += 1;
    const seconds = (performance.now() - began) / 1000;
    if ('units' in outcome) {
      counters.units += outcome.units;
      options.ended?.({ seconds, units: outcome.units });
    } else {
      counters.errors += 1;
      counters.lastError = outcome.error;
      options.ended?.({ seconds, error: outcome.error });
    }
  };

  const loop = (async () => {
    if (!enabled) return;
    while (!stopping.signal.aborted) {
      try {
        // Unreferenced: the job alone never keeps the process alive.
        await pause(everyMs, undefined, { signal: stopping.signal, ref: false });
      } catch {
        return;
      }
      await runOnce();
    }
  })();

  return {
    counters: () => ({ ...counters }),
    async stop() {
      stopping.abort();
      await loop;
    },
  };
}
