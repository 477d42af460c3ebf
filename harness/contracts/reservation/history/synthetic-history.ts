/**
 * Histories that are linearizable by construction, for measuring the checker and testing it for false
 * alarms: a random sequence of contract calls is run through the model one by one (operation i takes
 * effect at instant i), then each operation's interval is widened around its instant by up to `overlap`
 * on either side. Any interval that contains its operation's instant keeps that order a valid one.
 */

import { seededRandom } from '../../../history/seeded-random.ts';
import { type SyntheticEnding, syntheticTiming } from '../../../history/synthetic-timing.ts';
import { ContractState } from './contract-state.ts';
import { modelResults } from './model.ts';
import type { Call, ReservationHistory, ReservationOperation } from './reservation-operations.ts';

export interface SyntheticOptions {
  operations: number;
  skus: number;
  stockPerSku: number;
  users: number;
  /** How far (in instants) an operation's interval reaches to either side of its own. */
  overlap: number;
  seed: number;
}

function randomCall(random: () => number, o: SyntheticOptions, sent: string[]): Call {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const sku = `sku-${Math.floor(random() * o.skus)}`;
  const roll = random();
  if (roll < 0.5 || sent.length === 0) {
    const reuse = sent.length > 0 && random() < 0.15;
    const requestKey = reuse ? pick(sent) : `k-${sent.length}`;
    if (!reuse) sent.push(requestKey);
    const ttlMs = pick([30, 120, 3_600_000]);
    return { op: 'reserve', requestKey, user: `u-${Math.floor(random() * o.users)}`, sku, ttlMs };
  }
  if (roll < 0.62) return { op: 'confirm', requestKey: pick(sent) };
  if (roll < 0.74) return { op: 'release', requestKey: pick(sent) };
  if (roll < 0.84) return { op: 'status', requestKey: pick(sent) };
  if (roll < 0.9) return { op: 'remaining', sku };
  if (roll < 0.96) return { op: 'expire' };
  if (roll < 0.98) return { op: 'backdate', requestKeys: [pick(sent)] };
  return { op: 'disable', sku };
}

/** How the operation ended: mostly answered; some cut off (unknown) or rolled back (aborted). */
function endingKind(random: () => number): SyntheticEnding {
  const roll = random();
  return roll < 0.05 ? 'unknown' : roll < 0.08 ? 'aborted' : 'ok';
}

export function syntheticHistory(o: SyntheticOptions): ReservationHistory {
  const random = seededRandom(o.seed);
  const stock = Array.from({ length: o.skus }, (_, i) => ({ sku: `sku-${i}`, total: o.stockPerSku }));
  const state = new ContractState(new Map(stock.map((s) => [s.sku, s.total])));
  const sent: string[] = [];
  const operations: ReservationOperation[] = [];
  for (let i = 0; i < o.operations; i++) {
    const call = randomCall(random, o, sent);
    const at = i * 10;
    const results = modelResults(state, { id: i, call, db: { from: at, to: at } });
    const taken = results[0];
    if (!taken) throw new Error(`the model has no answer for ${call.op}`);
    const kind = endingKind(random);
    if (kind !== 'aborted') state.apply(taken.changes);
    operations.push({
      id: i,
      call,
      session: `s${i % 16}`,
      ...syntheticTiming(random, i, o.overlap, kind, taken.answer),
    });
  }
  operations.sort((a, b) => a.invokedAt - b.invokedAt);
  return { operations: operations.map((op, id) => ({ ...op, id })), stock };
}
