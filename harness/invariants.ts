/**
 * The invariant audit: the strategy's own counts, read in one REPEATABLE READ snapshot, reconciled against
 * the answers the clients received.
 */
import type { ClientBase } from 'pg';
import type { Strategy, StrategyAudit } from '../strategies/contract.ts';
import type { RequestResult } from './client-task.ts';

export interface Invariants {
  total: number;
  available: number;
  active: number;
  /** total − available − active; anything but 0 means the stock count and the reservations disagree. */
  drift: number;
  /** Σ over skus of max(0, active − total). */
  oversold: number;
  duplicateActive: number;
  duplicateKey: number;
  /** HELD answers whose reservation was never written, or is gone without the lifecycle ending it. */
  lostAcknowledged: number;
  /** Active reservations no client was told about (no HELD or REPLAY answer carries their key). */
  unacknowledgedActive: number;
  /** SOLD_OUT answers that stock never sold at the end could have served. */
  falseSoldOut: number;
}

export async function auditInSnapshot(db: ClientBase, strategy: Strategy): Promise<StrategyAudit> {
  await db.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    return await strategy.audit(db);
  } finally {
    await db.query('COMMIT');
  }
}

export function reconcile(audit: StrategyAudit, answers: readonly RequestResult[]): Invariants {
  const sum = (pick: (s: StrategyAudit['skus'][number]) => number) =>
    audit.skus.reduce((acc, s) => acc + pick(s), 0);
  const total = sum((s) => s.total);
  const available = sum((s) => s.available);
  const active = sum((s) => s.active);
  const unsold = sum((s) => Math.max(0, s.total - s.active));
  const activeKeys = new Set(audit.activeKeys);
  const accountedKeys = new Set([...audit.activeKeys, ...audit.endedKeys]);
  const heldKeys = new Set(answers.filter((a) => a.outcome === 'HELD').map((a) => a.requestKey));
  const answeredKeys = new Set(
    answers.filter((a) => a.outcome === 'HELD' || a.outcome === 'REPLAY').map((a) => a.requestKey),
  );
  const soldOut = answers.filter((a) => a.outcome === 'SOLD_OUT').length;
  return {
    total,
    available,
    active,
    drift: total - available - active,
    oversold: sum((s) => Math.max(0, s.active - s.total)),
    duplicateActive: audit.duplicateActive,
    duplicateKey: audit.duplicateKey,
    lostAcknowledged: [...heldKeys].filter((k) => !accountedKeys.has(k)).length,
    unacknowledgedActive: [...activeKeys].filter((k) => !answeredKeys.has(k)).length,
    falseSoldOut: Math.min(soldOut, unsold),
  };
}

/** The safety counts that are non-zero: what a safe design must never show and a control must. */
export function violations(invariants: Invariants): string[] {
  const found: string[] = [];
  if (invariants.oversold > 0) found.push(`oversold ${invariants.oversold}`);
  if (invariants.drift !== 0) found.push(`drift ${invariants.drift}`);
  if (invariants.duplicateActive > 0) found.push(`duplicateActive ${invariants.duplicateActive}`);
  if (invariants.duplicateKey > 0) found.push(`duplicateKey ${invariants.duplicateKey}`);
  if (invariants.lostAcknowledged > 0) found.push(`lostAcknowledged ${invariants.lostAcknowledged}`);
  if (invariants.unacknowledgedActive > 0)
    found.push(`unacknowledgedActive ${invariants.unacknowledgedActive}`);
  return found;
}
