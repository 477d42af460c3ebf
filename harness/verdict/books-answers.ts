/**
 * A design's books against the answers the harness recorded (`booksMatchAnswers`). Where `audit().books`
 * reports units sold and frozen per sku (frozen-ledger's counters), each is held to what the clients were
 * told, not to another reading of the same tables: units sold per sku are the confirms that answered
 * true; units frozen, over every sku, are the HELD answers less the holds confirmed, released (answered
 * true) and expired (the units every expire answered). A confirm that moves the order but not the books,
 * or a books entry no answer explains, shows here although the books add up among themselves
 * (`reconciled`) and replay to the counters (`ledgerReplayDrift`). Answers the case could not have
 * (lifecycle calls killed or failed, reserves cut off) widen the comparison by their number; a case that
 * lost acknowledged holds is left to `lostAcknowledged`, which names the loss.
 */
import type { StrategyAudit } from '../../strategies/contract.ts';
import type { Problem } from './expectations.ts';
import type { CaseFacts } from './invariants.ts';

/** Where `expected` is only known within `slack` (answers that never came), whether `seen` is outside it. */
const outside = (seen: number, expected: number, slack: number) => Math.abs(seen - expected) > slack;

const within = (expected: number, slack: number) => (slack > 0 ? `${expected} ± ${slack}` : `${expected}`);

/** Units sold per sku, as the confirms that answered true say. */
function confirmedBySku(facts: CaseFacts): Map<string, number> {
  const skuOf = new Map(facts.sent.map((r) => [r.requestKey, r.sku]));
  const bySku = new Map<string, number>();
  for (const key of facts.lifecycle.confirmed ?? []) {
    const sku = skuOf.get(key);
    if (sku !== undefined) bySku.set(sku, (bySku.get(sku) ?? 0) + 1);
  }
  return bySku;
}

/**
 * Keys whose hold the answers cannot settle: a request with the key was cut off by a fault (INDETERMINATE:
 * it may have committed, and a later REPLAY says so without a HELD), or sent by a process killed mid-way.
 */
function unsettledKeys(facts: CaseFacts): number {
  const answered = new Set(facts.answers.map((a) => a.requestKey));
  const cutOff = facts.answers.filter((a) => a.outcome === 'INDETERMINATE').map((a) => a.requestKey);
  const neverAnswered = facts.sent.map((r) => r.requestKey).filter((k) => !answered.has(k));
  return new Set([...cutOff, ...neverAnswered]).size;
}

export function booksMatchAnswers(
  facts: CaseFacts,
  audit: StrategyAudit | undefined,
  lostAcknowledged: number,
): Problem[] {
  const figures = audit?.books?.skus;
  if (!figures || lostAcknowledged > 0) return [];
  const { lifecycle } = facts;
  const lifecycleSlack = lifecycle.unanswered ?? 0;
  const sold = confirmedBySku(facts);
  const problems: Problem[] = [];
  for (const f of figures) {
    const expected = sold.get(f.sku) ?? 0;
    if (outside(f.sold, expected, lifecycleSlack)) {
      problems.push({
        check: 'booksMatchAnswers',
        message: `booksMatchAnswers: ${f.sku} sold: books ${f.sold}, confirms answered true ${within(expected, lifecycleSlack)}`,
      });
    }
  }
  const held = facts.answers.filter((a) => a.outcome === 'HELD').length;
  const ended = (lifecycle.confirmed?.size ?? 0) + lifecycle.released.size + (lifecycle.unitsExpired ?? 0);
  const frozen = figures.reduce((n, f) => n + f.frozen, 0);
  const slack = lifecycleSlack + unsettledKeys(facts);
  if (outside(frozen, held - ended, slack)) {
    problems.push({
      check: 'booksMatchAnswers',
      message: `booksMatchAnswers: frozen: books ${frozen}, HELD answers less confirmed, released and expired ${within(held - ended, slack)}`,
    });
  }
  return problems;
}
