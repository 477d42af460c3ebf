/**
 * Per-phase outcomes. A case's answers add up over its phases (a crash-recovery case sees HELD 10, then HELD
 * 5 after expiry gave 5 units back: HELD 15 against a stock of 10); the recorder keeps which answers came in
 * which batch of requests and which lifecycle steps (expire, backdate, a crash, a node restart) came before
 * or during each batch, so the report can show the outcomes phase by phase.
 */
import type { CasePhase, OutcomeCounts } from '../../../verdict/case-result.ts';

interface Batch {
  kind: string;
  /** Ticks of the recorder's clock: when the batch was sent and when its answers were in. */
  start: number;
  end: number;
  /** Its answers are `answers[from, to)` of the case's answer list. */
  from: number;
  to: number;
}

interface StepNote {
  at: number;
  op: string;
  /** What the step moved (units back, rows confirmed, keys backdated), summed when it runs more than once. */
  moved?: { n: number; unit: string };
}

/** `keys` → `key`, `units back` → `unit back`; `moved` stays. */
const singular = (unit: string) => unit.replace(/^(\w+?)s\b/, '$1');

/** Ops of one gap between batches, each once in the order first seen: `expire ×3 (8 units back)`. */
function describe(steps: readonly StepNote[]): string[] {
  const byOp = new Map<string, { calls: number; moved?: { n: number; unit: string } }>();
  for (const s of steps) {
    const seen = byOp.get(s.op) ?? { calls: 0 };
    seen.calls += 1;
    if (s.moved) seen.moved = { n: (seen.moved?.n ?? 0) + s.moved.n, unit: s.moved.unit };
    byOp.set(s.op, seen);
  }
  return [...byOp].map(
    ([op, { calls, moved }]) =>
      `${op}${calls > 1 ? ` ×${calls}` : ''}${moved ? ` (${moved.n} ${moved.n === 1 ? singular(moved.unit) : moved.unit})` : ''}`,
  );
}

export class PhaseRecorder {
  private clock = 0;
  private readonly batches: Batch[] = [];
  private readonly steps: StepNote[] = [];
  private readonly sentKeys = new Set<string>();

  /**
   * A batch of requests is sent: `replay` when every key was sent before, else `kind`; call the returned
   * function with the range of the case's answer list its answers took once they are in.
   */
  send(keys: readonly string[], kind = 'reserve'): (from: number, to: number) => void {
    const replay = keys.length > 0 && keys.every((k) => this.sentKeys.has(k));
    for (const k of keys) this.sentKeys.add(k);
    const batch: Batch = {
      kind: replay ? 'replay' : kind,
      start: ++this.clock,
      end: Number.POSITIVE_INFINITY,
      from: 0,
      to: 0,
    };
    this.batches.push(batch);
    return (from, to) => {
      batch.end = ++this.clock;
      batch.from = from;
      batch.to = to;
    };
  }

  /** Answers that came in at once, sent concurrently by sessions of their own (an interleaving's steps). */
  answered(from: number, to: number, kind = 'reserve'): void {
    this.batches.push({ kind, start: ++this.clock, end: ++this.clock, from, to });
  }

  /** A lifecycle step: `expire` (units back), `backdate` (keys), `database crash`, `restart of node-1`, … */
  step(op: string, moved?: { n: number; unit: string }): void {
    this.steps.push({ at: ++this.clock, op, ...(moved ? { moved } : {}) });
  }

  /**
   * The phases, from the final answers (after INDETERMINATE was decided) and the counting of the case's
   * outcomes. Consecutive batches of the same kind with no step between them are one phase; steps after
   * the last batch are a phase of their own (`then …`, no outcomes).
   */
  phases<A>(answers: readonly A[], count: (answers: readonly A[]) => OutcomeCounts): CasePhase[] {
    const batches = [...this.batches].sort((a, b) => a.start - b.start);
    const between = (after: number, before: number) =>
      this.steps.filter((s) => s.at > after && s.at < before);
    const groups: { kind: string; before: StepNote[]; during: StepNote[]; batches: Batch[] }[] = [];
    let previous = 0;
    for (const batch of batches) {
      const before = between(previous, batch.start);
      const during = between(batch.start, batch.end);
      const last = groups.at(-1);
      if (last && last.kind === batch.kind && before.length === 0 && last.during.length === 0) {
        last.batches.push(batch);
        last.during.push(...during);
      } else groups.push({ kind: batch.kind, before, during, batches: [batch] });
      previous = batch.start;
    }
    const phases: CasePhase[] = groups.map((g) => {
      const before = describe(g.before);
      const during = describe(g.during);
      const label = [
        g.kind,
        ...(before.length > 0 ? [`after ${before.join(', ')}`] : []),
        ...(during.length > 0 ? [`during ${during.join(', ')}`] : []),
      ].join(' ');
      return { label, outcomes: count(g.batches.flatMap((b) => answers.slice(b.from, b.to))) };
    });
    const lastBatch = batches.at(-1);
    const trailing = this.steps.filter((s) => !lastBatch || s.at > lastBatch.end);
    if (trailing.length > 0) phases.push({ label: `then ${describe(trailing).join(', ')}`, outcomes: {} });
    return phases;
  }
}
