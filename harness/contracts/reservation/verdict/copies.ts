/**
 * The checks that count across copies, for a case whose database was a cluster: the final read ran on
 * every member that was writable at some point of the case (each its own copy), and the counts a customer
 * cares about are taken across them, not on one (Jepsen's lost / recovered of Patroni's own CI, per copy):
 *
 * - `lostAcknowledged`: a HELD answer whose key some copy the cluster goes on with (a `survivor`) lacks, or
 *   holds in a state nothing of the case explains — the count every contract shares
 *   (cluster/lost-across-copies.ts), keeping a hold meaning its key in a state the case explains.
 * - `oversold`: per sku, the units sold across copies above its stock — the keys active on a survivor,
 *   with the acknowledged keys still active on a discarded copy (an old primary a failover left behind:
 *   its customer holds a unit the survivor may have sold again). What a discarded copy holds that no
 *   client was told of counts for nothing: no one was sold it.
 *
 * Every other count is the authority's (the first survivor: the member the cluster continues with), read
 * and audited as on one server.
 */
import { lostAcrossCopies } from '../../../cluster/lost-across-copies.ts';
import type { FinalRead } from './final-read.ts';
import { type CaseFacts, isActive, owners, type Reading, unexplainedEnd } from './invariants.ts';

/** One copy's final read: what the business API answered on that member. */
export interface CopyRead {
  member: string;
  role: 'survivor' | 'discarded';
  read: FinalRead;
}

/** What the report shows of each copy. */
export interface CopySummary {
  member: string;
  role: 'survivor' | 'discarded';
  /** Keys the case sent that are active (HELD or CONFIRMED) on this copy. */
  active: number;
  /** Σ remaining(sku) on this copy. */
  available: number;
  /** Acknowledged holds active on this copy and on no survivor. */
  acknowledgedOnlyHere: number;
}

function activeOn(copy: CopyRead): Set<string> {
  return new Set([...copy.read.statuses].filter(([, s]) => isActive(s)).map(([k]) => k));
}

/** HELD answers some survivor lacks (or holds ended in a way the case does not explain). */
function lostAcross(facts: CaseFacts, copies: readonly CopyRead[]): number {
  const held = [...new Set(facts.answers.filter((a) => a.outcome === 'HELD').map((a) => a.requestKey))];
  const keeps = (read: FinalRead, key: string) =>
    !unexplainedEnd(read.statuses.get(key), key, facts.lifecycle);
  return lostAcrossCopies(held, copies, keeps).length;
}

/** Units sold across copies above each sku's stock: survivors' active keys, and acknowledged ones elsewhere. */
function oversoldAcross(facts: CaseFacts, copies: readonly CopyRead[]): number {
  const told = new Set(
    facts.answers.filter((a) => a.outcome === 'HELD' || a.outcome === 'REPLAY').map((a) => a.requestKey),
  );
  const sold = new Set<string>();
  for (const copy of copies) {
    for (const key of activeOn(copy)) if (copy.role === 'survivor' || told.has(key)) sold.add(key);
  }
  const owner = owners(facts);
  const bySku = new Map<string, number>();
  for (const key of sold) {
    const sku = owner.get(key)?.sku;
    if (sku !== undefined) bySku.set(sku, (bySku.get(sku) ?? 0) + 1);
  }
  return facts.stock.reduce((sum, line) => sum + Math.max(0, (bySku.get(line.sku) ?? 0) - line.total), 0);
}

function summaries(facts: CaseFacts, copies: readonly CopyRead[]): CopySummary[] {
  const held = new Set(facts.answers.filter((a) => a.outcome === 'HELD').map((a) => a.requestKey));
  const onSurvivor = new Set(copies.filter((c) => c.role === 'survivor').flatMap((c) => [...activeOn(c)]));
  return copies.map((copy) => {
    const active = activeOn(copy);
    return {
      member: copy.member,
      role: copy.role,
      active: active.size,
      available: [...copy.read.remaining.values()].reduce((a, b) => a + b, 0),
      acknowledgedOnlyHere: [...active].filter((k) => held.has(k) && !onSurvivor.has(k)).length,
    };
  });
}

/**
 * The authority's reading with `lostAcknowledged` and `oversold` counted across `copies` (authority
 * first), and what each copy held.
 */
export function acrossCopies(
  reading: Reading,
  facts: CaseFacts,
  copies: readonly CopyRead[],
): Reading & { copies: CopySummary[] } {
  return {
    ...reading,
    invariants: {
      ...reading.invariants,
      lostAcknowledged: lostAcross(facts, copies),
      oversold: Math.max(reading.invariants.oversold, oversoldAcross(facts, copies)),
    },
    copies: summaries(facts, copies),
  };
}
