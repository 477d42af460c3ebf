/**
 * The payment contract's exhaustive scope (harness/explore/exhaustive.ts): every program of one or two
 * PAYs over two keys, each of one of four shapes. The first PAY sends the payment drill's payload under the first
 * key (any other is a renaming of it); the second sends, under the same key, that payload or it with one
 * field changed (amount, currency, merchant: another fingerprint; the order: the same one), or, under the
 * second key, the payload. Either may stop at each pause point the design declares and then commit, roll
 * back or be killed there; a second PAY after a stopped first is sent after the first ended, or while it
 * is held (from another session: the concurrent pair at that point). Programs run one after another in a
 * batch on one set of tables, each under its own tag (the payment model is a register per key, so no
 * program's keys meet another's).
 */
import type { PaymentPausePoint } from '../../../../strategies/payment/contract.ts';
import type { ScopeLanguage } from '../../../contract/contract-explore.ts';
import { type Resume, scheduledSteps } from '../../../explore/schedule.ts';
import { batched, batchTags, type TwoSessions, twoSessions } from '../../../explore/two-sessions.ts';
import type { PaymentDesignRef } from '../designs/payment-registry.ts';
import { type PayloadId, type PayOp, type PayProgram, payStepsOf } from './pay-program.ts';

/** The longest programs of the payment scope: two PAYs already race at every pause point. */
export const PAY_SCOPE_LENGTH = 2;

/** A key shape: the two keys a program names, told apart only by what the shape varies. */
export interface KeyShape {
  id: string;
  keys: readonly [string, string];
}

/** Past any limit a column or index of a design here sets, and alike but for its last character. */
const LONG_STEM = `k${'x'.repeat(250)}`;

export const KEY_SHAPES: readonly KeyShape[] = [
  { id: 'plain', keys: ['k1', 'k2'] },
  { id: 'case', keys: ['key-a', 'KEY-A'] },
  { id: 'long shared prefix', keys: [`${LONG_STEM}1`, `${LONG_STEM}2`] },
  // NFC and NFD of one letter: two keys to a design that compares bytes, as the contract does.
  { id: 'unicode form', keys: ['k\u00c5', 'kA\u030a'] },
];

interface SymbolicPay {
  key: 0 | 1;
  payload: PayloadId;
  pause?: PayOp['pause'];
}

export interface PayScopeProgram {
  pays: SymbolicPay[];
  /** The second PAY is sent while the first is held at its pause point. */
  inside: boolean;
  shape: KeyShape;
}

const RESUMES: readonly Resume[] = ['commit', 'rollback', 'kill'];
const SECOND_PAYLOADS: readonly PayloadId[] = ['base', 'amount', 'currency', 'merchant', 'order'];

/** Each way a PAY may run: to its end, or stopped at each of the design's points and resumed each way. */
function pauses(points: readonly PaymentPausePoint[]): (PayOp['pause'] | undefined)[] {
  return [undefined, ...points.flatMap((at) => RESUMES.map((resume) => ({ at, resume })))];
}

/** The second PAYs: the same key with each payload, the other key with the base one. */
function seconds(points: readonly PaymentPausePoint[]): SymbolicPay[] {
  const targets = [
    ...SECOND_PAYLOADS.map((payload) => ({ key: 0 as const, payload })),
    { key: 1 as const, payload: 'base' as const },
  ];
  return targets.flatMap((t) => pauses(points).map((pause) => (pause ? { ...t, pause } : t)));
}

/** The shapes a program is run under: one that names one key shows only that key's own shape. */
function shapesFor(pays: readonly SymbolicPay[]): readonly KeyShape[] {
  const two = pays.some((p) => p.key === 1);
  // One key alone: its length is a shape of its own; its case and its form only tell two keys apart.
  return two ? KEY_SHAPES : KEY_SHAPES.filter((s) => s.id === 'plain' || s.id === 'long shared prefix');
}

function* scopePrograms(points: readonly PaymentPausePoint[], maxLength: number): Generator<PayScopeProgram> {
  const firsts = pauses(points).map(
    (pause): SymbolicPay => ({ key: 0, payload: 'base', ...(pause ? { pause } : {}) }),
  );
  for (const first of firsts)
    for (const shape of shapesFor([first])) yield { pays: [first], inside: false, shape };
  if (maxLength < 2) return;
  for (const first of firsts)
    for (const second of seconds(points))
      for (const inside of first.pause ? [false, true] : [false])
        for (const shape of shapesFor([first, second])) yield { pays: [first, second], inside, shape };
}

/** The program under `tag`: its PAYs named, each its own payment id, in two sessions. */
function rendered(p: PayScopeProgram, tag: string): TwoSessions<PayOp> {
  const ops = p.pays.map(
    (pay, i): PayOp => ({ ...pay, key: `${tag}${p.shape.keys[pay.key]}`, paymentId: `${tag}pay-${i + 1}` }),
  );
  return twoSessions(ops, p.inside, (op) => payStepsOf(op).length);
}

/** Programs one after another on two sessions, each under its own tag (digits first: `07.k1`). */
function batchOf(programs: readonly PayScopeProgram[]): PayProgram {
  const tags = batchTags(programs.length);
  return batched(programs.map((p, i) => rendered(p, tags[i] ?? '')));
}

/** `s1: PAY k1 pay-1 UNTIL before-commit; s2: PAY k1 pay-2 AMOUNT 9999; s1: RESUME KILL (keys plain)`. */
function described(p: PayScopeProgram): string {
  const steps = scheduledSteps(batchOf([p]), payStepsOf).map(
    (s) => `s${s.session + 1}: ${s.body.replace(/^PAY 0\./, 'PAY ')}`,
  );
  return `${steps.join('; ').replaceAll(' 0.pay-', ' pay-')} (keys ${p.shape.id})`;
}

export function payScope(ref: PaymentDesignRef): ScopeLanguage<PayScopeProgram, PayProgram> {
  const points = ref.design.pausePoints.pay;
  return {
    programs: (maxLength) => scopePrograms(points, Math.min(maxLength, PAY_SCOPE_LENGTH)),
    length: (p) => p.pays.length,
    groupOf: () => 'pays',
    batch: batchOf,
    describe: described,
  };
}
