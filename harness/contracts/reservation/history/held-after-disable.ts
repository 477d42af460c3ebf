/**
 * The `heldAfterDisable` check: the contract's disable "waits for reservations in flight, and every
 * reserve after it answers SOLD_OUT". So no booking of a sku may commit HELD after a disable of that sku
 * returned. A booking is counted only when that is certain from the harness's own clock: the disable had
 * answered (that it disabled the sku) before the booking was sent, or, for a booking held at a pause point
 * before it committed anything, before the step that let it go on was sent. Linearizability alone allows
 * such a booking, which was in flight when the disable began: it may be ordered before the disable.
 */
import type { ReservationOperation } from './reservation-operations.ts';

export interface HeldAfterDisable {
  requestKey: string;
  sku: string;
  /** ms from the disable's answer to the booking's last step being sent. */
  lateByMs: number;
}

function disabledAt(operations: readonly ReservationOperation[]): Map<string, number> {
  const first = new Map<string, number>();
  for (const op of operations) {
    if (op.call.op !== 'disable' || op.ending.kind !== 'ok' || op.completedAt === null) continue;
    if (!('moved' in op.ending.answer) || !op.ending.answer.moved) continue;
    const known = first.get(op.call.sku);
    if (known === undefined || op.completedAt < known) first.set(op.call.sku, op.completedAt);
  }
  return first;
}

export function heldAfterDisable(operations: readonly ReservationOperation[]): HeldAfterDisable[] {
  const disabled = disabledAt(operations);
  const late: HeldAfterDisable[] = [];
  for (const op of operations) {
    if (op.call.op !== 'reserve' || op.ending.kind !== 'ok') continue;
    if (!('outcome' in op.ending.answer) || op.ending.answer.outcome !== 'HELD') continue;
    const at = disabled.get(op.call.sku);
    const sent = op.resumedAt ?? op.invokedAt;
    if (at !== undefined && sent > at) {
      late.push({
        requestKey: op.call.requestKey,
        sku: op.call.sku,
        lateByMs: Math.round((sent - at) * 10) / 10,
      });
    }
  }
  return late;
}
