/**
 * Measuring and judging a driven case: the final read of every key it sent through the business API, the
 * strategy's audit in one snapshot, the reading the invariants are computed from, every problem the case
 * shows, the judgement against the strategy's expectation, and the CaseResult that reports it.
 */

import { type CheckName, OUTCOMES, type Strategy } from '../../../../strategies/contract.ts';
import { summarizeLatency } from '../../../driver/latency.ts';
import { FINAL_READ_SESSION, harnessNow } from '../../../history/recorder.ts';
import type { StepRecord } from '../../../interleaving/permutation.ts';
import type { OutcomeCounts } from '../../../verdict/case-result.ts';
import {
  countOutcomes,
  errorProblems,
  type Judgement,
  judge,
  notExercised,
} from '../../../verdict/judgement.ts';
import type { RequestResult } from '../driver/client-task.ts';
import { judgeHistory } from '../history/case-history.ts';
import type { ReservationRecorder } from '../history/reservation-operations.ts';
import { booksMatchAnswers } from '../verdict/books-answers.ts';
import type { AuditSummary, MeasuredCase } from '../verdict/case-result.ts';
import { acrossCopies, type CopySummary } from '../verdict/copies.ts';
import type { FinalRead } from '../verdict/final-read.ts';
import { gaveUpWrote } from '../verdict/gave-up.ts';
import { auditInSnapshot, computeReading, type Reading } from '../verdict/invariants.ts';
import { sellsWhatRemainsProblems } from '../verdict/sells-what-remains.ts';
import { expectationProblems, heldBoundary, invariantProblems } from '../verdict/verdict.ts';
import { NO_AUDIT } from './black-box.ts';
import { type CaseOnSchema, type CaseSpec, identityOf } from './case-spec.ts';
import type { Driven } from './driven.ts';
import { finalReads } from './final-reads.ts';
import { probeSellsWhatRemains } from './probe-remaining.ts';
import type { Observations, Problem } from './scenario.ts';

/** What the final read calls on every case, whatever the scenario drove. */
const FINAL_READ_OPERATIONS = ['status', 'remaining'];

/** Counts per outcome, in the contract's order (HELD first, ERROR last) so reports read the same every run. */
const countReserveOutcomes = (answers: readonly RequestResult[]): OutcomeCounts =>
  countOutcomes(answers, OUTCOMES);

function auditSummary(audit: Awaited<ReturnType<NonNullable<Strategy['audit']>>>): AuditSummary {
  return {
    skus: audit.skus,
    duplicateActive: audit.duplicateActive,
    duplicateKey: audit.duplicateKey,
    activeKeys: audit.activeKeys.length,
    endedKeys: audit.endedKeys.length,
  };
}

/** The observations in the case line, or their count where there are too many to read in one line. */
function observedNote(observations: Observations): string {
  const entries = Object.entries(observations);
  if (entries.length === 0) return '';
  if (entries.length > 6) return ` (${entries.length} observations; see the JSON)`;
  return ` (${entries.map(([k, v]) => `${k} ${JSON.stringify(v)}`).join(', ')})`;
}

function blockedNote(steps: readonly StepRecord[]): string {
  const blocked = steps.filter((s) => s.blocked).map((s) => s.step);
  return blocked.length > 0 ? ` (blocked, then completed: ${blocked.join(', ')})` : ' (no step blocked)';
}

/** An ERROR the scenario's own fault caused is INDETERMINATE: sent, its fate unknown to the client. */
function withIndeterminate(answers: RequestResult[], faults: readonly string[] | undefined): RequestResult[] {
  if (!faults?.length) return answers;
  return answers.map((a) =>
    a.outcome === 'ERROR' && a.sqlstate && faults.includes(a.sqlstate)
      ? { ...a, outcome: 'INDETERMINATE' }
      : a,
  );
}

/** Retries by reason and errors by SQLSTATE over the case's answers; absent when there were none. */
function tally(answers: readonly RequestResult[]): {
  retries?: Record<string, number>;
  sqlstates?: Record<string, number>;
} {
  const retries: Record<string, number> = {};
  const sqlstates: Record<string, number> = {};
  for (const a of answers) {
    for (const [why, n] of Object.entries(a.retries ?? {})) retries[why] = (retries[why] ?? 0) + n;
    if (a.outcome === 'ERROR' || a.outcome === 'INDETERMINATE')
      sqlstates[a.sqlstate ?? 'other'] = (sqlstates[a.sqlstate ?? 'other'] ?? 0) + 1;
  }
  return {
    ...(Object.keys(retries).length > 0 ? { retries } : {}),
    ...(Object.keys(sqlstates).length > 0 ? { sqlstates } : {}),
  };
}

/** The final read as operations of the history: each within the read's span, after everything else. */
function recordFinalRead(
  history: ReservationRecorder,
  read: FinalRead,
  span: { from: number; to: number },
): void {
  const at = { session: FINAL_READ_SESSION, invokedAt: span.from };
  for (const [requestKey, status] of read.statuses)
    history.add({ op: 'status', requestKey }, at, span.to, { kind: 'ok', answer: { status } });
  for (const [sku, remaining] of read.remaining)
    history.add({ op: 'remaining', sku }, at, span.to, { kind: 'ok', answer: { remaining } });
}

/**
 * The strategy as the verdict reads it: in a control scenario, the checks the scenario names catch it too
 * (beside its own, for a control design).
 */
function judgedAs(spec: CaseSpec): Strategy {
  const { strategy } = spec.ref;
  const { id, everyDesignCaughtBy } = spec.scenario;
  if (!everyDesignCaughtBy) return strategy;
  const own = strategy.caughtBy?.[id] ?? [];
  return {
    ...strategy,
    caughtBy: { ...strategy.caughtBy, [id]: [...new Set([...own, ...everyDesignCaughtBy])] },
  };
}

/** The case judged on every problem it shows, and the note on the boundaries it only measures. */
function judged(
  spec: CaseSpec,
  driven: Driven,
  reading: Reading,
  outcomes: OutcomeCounts,
  judgeBlocking: boolean,
  historyProblems: readonly Problem[],
  /** The probes' and the answer checks': sell-what-remains, books against answers, GAVE_UP wrote, copies unread. */
  probeProblems: readonly Problem[],
): { judgement: Judgement<CheckName>; note: string } {
  const { scenario, params } = spec;
  const { strategy } = spec.ref;
  const all: Problem[] = [
    ...invariantProblems(reading),
    ...historyProblems,
    ...probeProblems,
    ...expectationProblems(
      scenario,
      params,
      { outcomes, invariants: reading.invariants, observed: driven.observations },
      strategy.id,
      judgeBlocking ? driven.steps : undefined,
    ),
    ...errorProblems([...driven.answers, ...driven.failures], scenario.expect.faults),
  ];
  // A boundary this scenario measures (lost acknowledgements with synchronous_commit = off) is reported,
  // not judged.
  const measuredOnly = scenario.expect.boundaryChecks ?? [];
  const found = all.filter((p) => !measuredOnly.includes(p.check));
  const boundaryFound = all.filter((p) => measuredOnly.includes(p.check)).map((p) => p.message);
  const held = () => heldBoundary(reading, outcomes);
  const judgement = judge(judgedAs(spec), identityOf(spec).expect, scenario.id, found, held);
  const note = [
    scenario.expect.boundaryNote?.(driven.observations),
    ...(measuredOnly.length > 0
      ? [`measured in ${scenario.id}: ${boundaryFound.join(', ') || `0 (${measuredOnly.join(', ')})`}`]
      : []),
  ]
    .filter(Boolean)
    .join('; ');
  return { judgement, note };
}

/** The driven case measured (final read, audit) and judged; `at` is told each stage as it begins. */
export async function measureCase(
  on: CaseOnSchema,
  drove: Driven,
  judgeBlocking: boolean,
  at: (stage: string) => void,
): Promise<MeasuredCase> {
  const { spec, settings, db, schema } = on;
  const { strategy } = spec.ref;
  const { scenario, blackBox } = spec;
  const driven = { ...drove, answers: withIndeterminate(drove.answers, scenario.expect.faults) };
  at('the final read');
  const keys = [...driven.sent.map((r) => r.requestKey), ...driven.answers.map((a) => a.requestKey)];
  const skus = spec.params.stock.map((s) => s.sku);
  const readFrom = harnessNow();
  const { read, copies, unread = [] } = await finalReads(on, keys, skus);
  recordFinalRead(on.history, read, { from: readFrom, to: harnessNow() });
  at('the audit');
  const audit = await auditInSnapshot(db.admin, strategy);
  const facts = {
    stock: spec.params.stock,
    sent: driven.sent,
    answers: driven.answers,
    lifecycle: driven.lifecycle,
  };
  const one = computeReading(facts, read, audit);
  const reading: Reading & { copies?: CopySummary[] } = copies ? acrossCopies(one, facts, copies) : one;
  // A black box's HTTP facts are the case's own exchanges: the probe's are taken apart and dropped.
  const http = blackBox?.takeFacts();
  at('the sell-what-remains probe');
  const probe = await probeSellsWhatRemains(on, driven, read, on.pool);
  blackBox?.takeFacts();
  const outcomes = countReserveOutcomes(driven.answers);
  at('the history check');
  const history = judgeHistory(on.history.history(spec.params.stock), {
    soldOutWhileStock: strategy.falseSoldOut !== undefined,
  });
  const { judgement, note } = judged(spec, driven, reading, outcomes, judgeBlocking, history.problems, [
    ...sellsWhatRemainsProblems(probe),
    ...booksMatchAnswers(facts, audit, reading.invariants.lostAcknowledged),
    ...gaveUpWrote(driven.sent, driven.answers, read.statuses),
    ...notExercised<CheckName>(unread),
  ]);
  const keep = settings.keepAll === true || (judgement.status === 'fail' && settings.keepFailed);
  const { steps, observations } = driven;
  return {
    ...identityOf(spec),
    status: judgement.status,
    outcomes,
    phases: driven.phases.phases(driven.answers, countReserveOutcomes),
    invariants: reading.invariants,
    ...(audit ? { audit: auditSummary(audit) } : { noAudit: NO_AUDIT }),
    finalRead: {
      statuses: reading.statusCounts,
      skus: reading.skus,
      ...(reading.indeterminate ? { indeterminate: reading.indeterminate } : {}),
    },
    history: history.summary,
    sellsWhatRemains: probe,
    coverage: { exercised: [...driven.exercised, ...FINAL_READ_OPERATIONS], pausePoints: driven.pausePoints },
    fired: judgement.fired,
    ...tally(driven.answers),
    boundary: `${judgement.boundary}${steps ? blockedNote(steps) : ''}${observedNote(observations)}`,
    problems: judgement.problems,
    ...(steps
      ? { steps: steps.map(({ sentAt: _, completedAt: __, ...shown }) => shown) }
      : { latency: summarizeLatency(driven.answers.map((a) => a.latencyMs)) }),
    ...(http ? { http } : {}),
    ...(reading.copies ? { copies: reading.copies } : {}),
    ...(Object.keys(observations).length > 0 ? { observations } : {}),
    ...(note ? { boundaryNote: note } : {}),
    ...(scenario.expect.headline ? { headline: true } : {}),
    ...(keep ? { keptSchema: schema } : {}),
  };
}
