/**
 * The invariant counts, computed by the harness from what it observed itself: the stock it gave to
 * `setup`, every request it sent and every answer it got, the lifecycle calls it made, and its final read
 * through `status` and `remaining`. The strategy's `audit()` (its own reading of its tables, in one
 * REPEATABLE READ snapshot) is compared with that reading; every disagreement is an `auditMismatch`.
 */
import type { ClientBase } from 'pg';
import type { StockLine, Strategy, StrategyAudit } from '../../../../strategies/contract.ts';
import { inSnapshot } from '../../../verdict/snapshot.ts';
import type { RequestResult } from '../driver/client-task.ts';
import type { FinalRead, KeyStatus } from './final-read.ts';

export interface Invariants {
  total: number;
  /** Σ remaining(sku), as the strategy's stock state says. */
  available: number;
  /** Keys whose final status is HELD or CONFIRMED. */
  active: number;
  /** Σ per sku of total − remaining − active; anything but 0 means stock and reservations disagree. */
  drift: number;
  /** Σ over skus of max(0, active − total). */
  oversold: number;
  /** (user, sku) pairs with more than one active key. */
  duplicateActive: number;
  /**
   * request_keys owning more than one row: only the audit can see these (the second opinion). Absent for a
   * strategy without an audit (a black box).
   */
  duplicateKey?: number;
  /** HELD answers whose key is not found, or ended in a way no operation of the case explains. */
  lostAcknowledged: number;
  /** Active keys no client was told about (no HELD or REPLAY answer for the key). */
  unacknowledgedActive: number;
  /** SOLD_OUT answers that stock never sold at the end could have served (a boundary, not a violation). */
  falseSoldOut: number;
  /** Disagreements between the audit and the harness's final read (counts per sku, active keys); absent without an audit. */
  auditMismatch?: number;
  /** Designs that keep books (StrategyAudit.books): every sku's counters add up. */
  reconciled?: boolean;
  /** Designs that keep books: how far a replay of the ledger lands from today's counters. */
  ledgerReplayDrift?: number;
}

/** A request the case sent, answered or not (a crashed child's request has no answer). */
export interface SentRequest {
  requestKey: string;
  user: string;
  sku: string;
}

/** Lifecycle operations the case itself performed: what explains a held key ending. */
export interface LifecycleFacts {
  released: ReadonlySet<string>;
  expireRan: boolean;
  /** Skus an administrator disabled: a SOLD_OUT there is the point, not a false sold-out. */
  disabled?: ReadonlySet<string>;
  /** Keys whose confirm answered true (the books' units sold, booksMatchAnswers). */
  confirmed?: ReadonlySet<string>;
  /** Σ of the units every expire answered it gave back. */
  unitsExpired?: number;
  /** confirm, release and expire calls whose answer never came (killed, failed): the books are then bounded, not exact. */
  unanswered?: number;
}

export interface CaseFacts {
  stock: readonly StockLine[];
  sent: readonly SentRequest[];
  answers: readonly RequestResult[];
  lifecycle: LifecycleFacts;
}

export interface SkuReading {
  sku: string;
  total: number;
  remaining: number;
  active: number;
  drift: number;
}

export interface Reading {
  invariants: Invariants;
  skus: SkuReading[];
  /** One line per disagreement between the audit and the final read, with both numbers. */
  mismatches: string[];
  /** How many keys ended in each status, for the report. */
  statusCounts: Record<string, number>;
  /** INDETERMINATE keys, each explained by the final read as committed (found) or not. */
  indeterminate?: { committed: number; notCommitted: number };
}

/** The strategy's audit in one REPEATABLE READ snapshot; undefined when it has none (a black box). */
export async function auditInSnapshot(
  db: ClientBase,
  strategy: Strategy,
): Promise<StrategyAudit | undefined> {
  const { audit } = strategy;
  return audit ? inSnapshot(db, () => audit(db)) : undefined;
}

export const isActive = (status: KeyStatus | undefined) => status === 'HELD' || status === 'CONFIRMED';

/** The sender of each key: the one a HELD or REPLAY answer went to, else the first that sent it. */
export function owners(facts: CaseFacts): Map<string, SentRequest> {
  const owner = new Map<string, SentRequest>();
  for (const a of facts.answers) {
    if ((a.outcome === 'HELD' || a.outcome === 'REPLAY') && !owner.has(a.requestKey))
      owner.set(a.requestKey, a);
  }
  for (const r of facts.sent) if (!owner.has(r.requestKey)) owner.set(r.requestKey, r);
  return owner;
}

/** Why a held key's end state is not explained by what the case did (undefined when it is). */
export function unexplainedEnd(
  status: KeyStatus | undefined,
  key: string,
  lifecycle: LifecycleFacts,
): boolean {
  if (status === undefined || status === 'NOT_FOUND') return true;
  if (status === 'RELEASED') return !lifecycle.released.has(key);
  if (status === 'EXPIRED') return !lifecycle.expireRan;
  return false;
}

function compareWithAudit(
  audit: StrategyAudit,
  skus: readonly SkuReading[],
  activeKeys: Set<string>,
): string[] {
  const found: string[] = [];
  const audited = new Map(audit.skus.map((s) => [s.sku, s]));
  for (const s of skus) {
    const a = audited.get(s.sku);
    if (!a) {
      found.push(`${s.sku} missing from the audit`);
      continue;
    }
    if (a.total !== s.total) found.push(`${s.sku} total: audit ${a.total}, given to setup ${s.total}`);
    if (a.available !== s.remaining)
      found.push(`${s.sku} available: audit ${a.available}, remaining() ${s.remaining}`);
    if (a.active !== s.active) found.push(`${s.sku} active: audit ${a.active}, final read ${s.active}`);
  }
  const auditActive = new Set(audit.activeKeys);
  const onlyAudit = [...auditActive].filter((k) => !activeKeys.has(k));
  const onlyRead = [...activeKeys].filter((k) => !auditActive.has(k));
  const sample = (keys: string[]) => `${keys.slice(0, 3).join(', ')}${keys.length > 3 ? ', …' : ''}`;
  if (onlyAudit.length > 0)
    found.push(`${onlyAudit.length} key(s) active in the audit only: ${sample(onlyAudit)}`);
  if (onlyRead.length > 0)
    found.push(`${onlyRead.length} key(s) active by status() only: ${sample(onlyRead)}`);
  return found;
}

/** Without an audit (a black box), `duplicateKey` and `auditMismatch` are not computed: absent, not 0. */
export function computeReading(facts: CaseFacts, read: FinalRead, audit: StrategyAudit | undefined): Reading {
  const owner = owners(facts);
  const activeKeys = new Set([...read.statuses].filter(([, s]) => isActive(s)).map(([k]) => k));
  const activeBySku = new Map<string, number>();
  const activeByUserSku = new Map<string, number>();
  for (const key of activeKeys) {
    const who = owner.get(key);
    if (!who) continue;
    activeBySku.set(who.sku, (activeBySku.get(who.sku) ?? 0) + 1);
    const pair = `${who.user}\u0000${who.sku}`;
    activeByUserSku.set(pair, (activeByUserSku.get(pair) ?? 0) + 1);
  }
  const skus = facts.stock.map((line): SkuReading => {
    const remaining = read.remaining.get(line.sku) ?? 0;
    const active = activeBySku.get(line.sku) ?? 0;
    return { sku: line.sku, total: line.total, remaining, active, drift: line.total - remaining - active };
  });
  const soldOutBySku = new Map<string, number>();
  for (const a of facts.answers) {
    if (a.outcome === 'SOLD_OUT') soldOutBySku.set(a.sku, (soldOutBySku.get(a.sku) ?? 0) + 1);
  }
  const heldKeys = new Set(facts.answers.filter((a) => a.outcome === 'HELD').map((a) => a.requestKey));
  // A key whose answer a fault cut off may be active without anyone having been told: it is explained by
  // the final read (committed or not), never counted as unacknowledged.
  const toldKeys = new Set(
    facts.answers
      .filter((a) => a.outcome === 'HELD' || a.outcome === 'REPLAY' || a.outcome === 'INDETERMINATE')
      .map((a) => a.requestKey),
  );
  const indeterminateKeys = new Set(
    facts.answers.filter((a) => a.outcome === 'INDETERMINATE').map((a) => a.requestKey),
  );
  const committed = [...indeterminateKeys].filter(
    (k) => (read.statuses.get(k) ?? 'NOT_FOUND') !== 'NOT_FOUND',
  ).length;
  const sum = (pick: (s: SkuReading) => number) => skus.reduce((acc, s) => acc + pick(s), 0);
  const mismatches = audit ? compareWithAudit(audit, skus, activeKeys) : [];
  const statusCounts: Record<string, number> = {};
  for (const status of read.statuses.values()) statusCounts[status] = (statusCounts[status] ?? 0) + 1;
  return {
    skus,
    mismatches,
    statusCounts,
    ...(indeterminateKeys.size > 0
      ? { indeterminate: { committed, notCommitted: indeterminateKeys.size - committed } }
      : {}),
    invariants: {
      total: sum((s) => s.total),
      available: sum((s) => s.remaining),
      active: activeKeys.size,
      drift: sum((s) => s.drift),
      oversold: sum((s) => Math.max(0, s.active - s.total)),
      duplicateActive: [...activeByUserSku.values()].filter((n) => n > 1).length,
      ...(audit ? { duplicateKey: audit.duplicateKey } : {}),
      lostAcknowledged: [...heldKeys].filter((k) => unexplainedEnd(read.statuses.get(k), k, facts.lifecycle))
        .length,
      unacknowledgedActive: [...activeKeys].filter((k) => !toldKeys.has(k)).length,
      falseSoldOut: sum((s) =>
        facts.lifecycle.disabled?.has(s.sku)
          ? 0
          : Math.min(soldOutBySku.get(s.sku) ?? 0, Math.max(0, s.total - s.active)),
      ),
      ...(audit ? { auditMismatch: mismatches.length } : {}),
      ...(audit?.books
        ? { reconciled: audit.books.reconciled, ledgerReplayDrift: audit.books.ledgerReplayDrift }
        : {}),
    },
  };
}
