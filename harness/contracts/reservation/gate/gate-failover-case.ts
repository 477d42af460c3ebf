/**
 * The shared PostgreSQL gate across a failover of the database that keeps its permits (docs/scale.md).
 * LIMIT requests are let in on the primary and held there (the harness holds the service's tables,
 * frozen-gate-case.ts), so every permit is taken; then the primary is killed (immediate shutdown) and its
 * synchronous standby promoted. Where the permit rows are then is placed by observed state, never by time:
 * `replicated` waits until the standby has replayed them (its replay LSN); `unreplicated` cuts the
 * standby's link before the requests come, so they exist on the old primary alone — which the gate's own
 * commits allow even on a synchronous cluster, since they do not wait for their WAL (postgres-permits.ts).
 * After the failover the harness asks again and again, one request at a time, until one is admitted: the
 * time without admission, from the kill. Then the bound is checked on the new primary with the frozen case
 * itself, while database-concurrency.ts samples it from the failover on. Every answer goes into the case's
 * facts and the final read through the business API judges them (`invariantProblems`: nothing
 * acknowledged lost, nothing oversold).
 */

import { setTimeout as pause } from 'node:timers/promises';
import type pg from 'pg';
import { Errors } from '../../../errors.ts';
import { concurrencyProblems, sampleConcurrency } from '../../../gate/database-concurrency.ts';
import { GATE_SCHEMA } from '../../../gate/postgres-permits.ts';
import type { RequestResult } from '../driver/client-task.ts';
import { type HttpAnswer, postReserve } from '../http/loopback-client.ts';
import { readBack } from '../verdict/final-read.ts';
import { auditInSnapshot, computeReading, type SentRequest } from '../verdict/invariants.ts';
import { invariantProblems } from '../verdict/verdict.ts';
import { blockedBy, type FrozenGateResult, freeze, runFrozenGateCase } from './frozen-gate-case.ts';
import { GATE_FAILOVER_SKU, type GateFailoverBed, type GateFailoverSettings } from './gate-failover-setup.ts';

export const PERMIT_PLACEMENTS = ['replicated', 'unreplicated'] as const;
export type PermitPlacement = (typeof PERMIT_PLACEMENTS)[number];

/** How often the probe asks again after a 503 (a sampling period: it decides no ordering). */
const PROBE_PAUSE_MS = 10;

export interface GateFailoverResult {
  placement: PermitPlacement;
  /** Requests seen inside the old primary when it was killed (each holding a permit). */
  insideBeforeFailover: number;
  /** Permits the new primary believed held (holder set, lease running) right after its promotion. */
  permitsOnNewPrimary: number;
  /** No member took writes (the cluster's own measure). */
  unavailableMs: number;
  /** From the failover's start (the kill, on the embedded cluster) to the first request served after it. */
  withoutAdmissionMs: number;
  /** 503s the probe got before that admission. */
  refusedBeforeAdmission: number;
  /** The frozen case on the new primary: how many the gate lets in at once after the failover. */
  after: FrozenGateResult;
  /** The most requests seen inside the new primary at once, from the failover to the end. */
  maxInsideAfter: number;
  /** Every answer of the case by code and outcome. */
  answers: Record<string, number>;
  lostAcknowledged: number;
  oversold: number;
  problems: string[];
}

/** One request of the case and its answer, as the final read's facts take it. */
interface Sent {
  request: SentRequest;
  answer: HttpAnswer;
}

function asResult({ request, answer }: Sent): RequestResult {
  const outcome = answer.fields.outcome ?? '';
  const known = ['HELD', 'REPLAY', 'SOLD_OUT', 'INDETERMINATE'].includes(outcome);
  // A 503 with Retry-After wrote nothing: the request was not served (GAVE_UP, in the contract's words).
  const mapped = known ? outcome : answer.code === 503 && answer.retryAfter ? 'GAVE_UP' : 'ERROR';
  return { ...request, outcome: mapped as RequestResult['outcome'], latencyMs: 0 };
}

class CaseRequests {
  readonly all: Sent[] = [];
  private sent = 0;

  constructor(private readonly urls: readonly string[]) {}

  /** A reserve of a fresh key and user to instance (i mod N) of the i-th request. */
  async send(): Promise<Sent> {
    const i = this.sent++;
    const request = { requestKey: `gf-${i}`, user: `gf-user-${i}`, sku: GATE_FAILOVER_SKU };
    const answer = await postReserve(this.urls[i % this.urls.length] ?? '', { ...request, ttlMs: 600_000 });
    const sent = { request, answer };
    this.all.push(sent);
    return sent;
  }
}

/** Permits of `gate` whose holder is set and whose lease still runs, on the member `client` is on. */
export async function permitsHeld(client: pg.ClientBase, gate: string): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${GATE_SCHEMA}.permit
      WHERE gate = $1 AND holder IS NOT NULL AND lease_until >= clock_timestamp()`,
    [gate],
  );
  return rows[0]?.n ?? 0;
}

/** Waits until `count` requests are seen blocked by the holder (pg_blocking_pids), or throws. */
async function seenInside(observer: pg.ClientBase, holderPid: number, count: number, timeoutMs: number) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const inside = await blockedBy(observer, holderPid);
    if (inside >= count) return inside;
    if (performance.now() > deadline) {
      throw Errors.barrierTimeout(`${count} requests inside the primary (${inside} seen)`, timeoutMs / 1000);
    }
    await pause(5);
  }
}

/** A case that did not place the permits where it claims fails as not exercised. */
export function placementProblems(placement: PermitPlacement, permitsOnNewPrimary: number): string[] {
  if (placement === 'replicated' && permitsOnNewPrimary === 0)
    return ['not exercised: no permit held before the failover was held on the new primary'];
  if (placement === 'unreplicated' && permitsOnNewPrimary > 0)
    return [`not exercised: ${permitsOnNewPrimary} permit(s) reached the new primary across the cut link`];
  return [];
}

/** Every permit taken by a request held inside the primary, the permit rows placed as `placement` says. */
async function holdEveryPermit(
  bed: GateFailoverBed,
  settings: GateFailoverSettings,
  placement: PermitPlacement,
  requests: CaseRequests,
  timeoutMs: number,
): Promise<{ inside: number; held: Promise<Sent>[]; holder: pg.Client }> {
  const [standby] = await bed.cluster.standbys();
  if (!standby) throw new Error('the cluster has no standby');
  // The gate's rows were made without waiting for their WAL either: on the standby first, then cut off.
  await bed.cluster.caughtUp(standby);
  if (placement === 'unreplicated') await bed.cluster.partition(standby);
  const holder = await bed.connect('reservebench-gate-holder');
  const observer = await bed.connect('reservebench-gate-observer');
  try {
    const holderPid = await freeze(holder, bed.schema);
    const held = Array.from({ length: settings.limit }, () => requests.send());
    for (const answer of held) answer.catch(() => undefined);
    const inside = await seenInside(observer, holderPid, settings.limit, timeoutMs);
    // The standby has replayed every permit row once its replay LSN passes the primary's WAL now.
    if (placement === 'replicated') await bed.cluster.caughtUp(standby);
    return { inside, held, holder };
  } finally {
    await observer.end().catch(() => undefined);
  }
}

/** Asks one request at a time until one is served HELD; the time from `since`, and the 503s before. */
async function firstAdmission(requests: CaseRequests, since: number, timeoutMs: number) {
  let refused = 0;
  for (;;) {
    const { answer } = await requests.send();
    if (answer.code === 201) return { ms: Math.round(performance.now() - since), refused };
    if (answer.code !== 503) {
      throw new Error(
        `a request after the failover was answered ${answer.code} ${answer.fields.outcome ?? ''}`,
      );
    }
    refused += 1;
    if (performance.now() - since > timeoutMs) {
      throw Errors.barrierTimeout('a request admitted after the failover', timeoutMs / 1000);
    }
    await pause(PROBE_PAUSE_MS);
  }
}

/** The final read through the business API on the new primary, judged by the suite's invariants. */
async function judgeHolds(bed: GateFailoverBed, settings: GateFailoverSettings, sent: readonly Sent[]) {
  const facts = {
    stock: [{ sku: GATE_FAILOVER_SKU, total: settings.stock }],
    sent: sent.map((s) => s.request),
    answers: sent.map(asResult),
    lifecycle: { released: new Set<string>(), expireRan: false },
  };
  const connection = { connectionString: bed.endpointUrl, schema: bed.schema };
  const keys = sent.map((s) => s.request.requestKey);
  const read = await readBack(connection, bed.strategy, keys, [GATE_FAILOVER_SKU]);
  const auditor = await bed.connect('reservebench-audit');
  try {
    return computeReading(facts, read, await auditInSnapshot(auditor, bed.strategy));
  } finally {
    await auditor.end().catch(() => undefined);
  }
}

function tally(sent: readonly Sent[]): Record<string, number> {
  const answers: Record<string, number> = {};
  for (const { answer } of sent) {
    const key = `${answer.code} ${answer.fields.outcome ?? ''}`.trim();
    answers[key] = (answers[key] ?? 0) + 1;
  }
  return answers;
}

/** The frozen case's requests (key `gate-i`, user `gate-user-i`) with their answers. */
const frozenSent = (after: FrozenGateResult): Sent[] =>
  after.each.map((answer, i) => ({
    request: { requestKey: `gate-${i}`, user: `gate-user-${i}`, sku: GATE_FAILOVER_SKU },
    answer,
  }));

/** After the promotion: the permits the new primary holds, the time to an admission, the bound again. */
async function afterFailover(
  bed: GateFailoverBed,
  settings: GateFailoverSettings,
  requests: CaseRequests,
  killedAt: number,
  timeoutMs: number,
) {
  const observer = await bed.connect('reservebench-gate-observer');
  const watcher = await bed.connect('reservebench-gate-observer');
  const holder = await bed.connect('reservebench-gate-holder');
  const sampler = sampleConcurrency(watcher);
  try {
    const permitsOnNewPrimary = await permitsHeld(observer, bed.gateName);
    const admission = await firstAdmission(requests, killedAt, timeoutMs);
    const after = await runFrozenGateCase({
      urls: bed.services.map((s) => s.url),
      holder,
      observer,
      schema: bed.schema,
      sku: GATE_FAILOVER_SKU,
      requests: settings.instances * (settings.limit + 2),
      limit: settings.limit,
      timeoutMs,
    });
    return { permitsOnNewPrimary, admission, after, seen: await sampler.stop() };
  } finally {
    await sampler.stop();
    await Promise.all([observer, watcher, holder].map((c) => c.end().catch(() => undefined)));
  }
}

export async function runGateFailoverCase(
  bed: GateFailoverBed,
  settings: GateFailoverSettings,
  placement: PermitPlacement,
  timeoutMs: number,
): Promise<GateFailoverResult> {
  const requests = new CaseRequests(bed.services.map((s) => s.url));
  const before = await holdEveryPermit(bed, settings, placement, requests, timeoutMs);
  const killedAt = performance.now();
  const facts = await bed.cluster.failover();
  await bed.followPrimary();
  await before.holder.end().catch(() => undefined);
  // Cut off with the old primary: each answered (INDETERMINATE) once its connection went.
  await Promise.allSettled(before.held);
  const { permitsOnNewPrimary, admission, after, seen } = await afterFailover(
    bed,
    settings,
    requests,
    killedAt,
    timeoutMs,
  );
  const sent = [...requests.all, ...frozenSent(after)];
  const reading = await judgeHolds(bed, settings, sent);
  return {
    placement,
    insideBeforeFailover: before.inside,
    permitsOnNewPrimary,
    unavailableMs: facts.unavailableMs,
    withoutAdmissionMs: admission.ms,
    refusedBeforeAdmission: admission.refused,
    after,
    maxInsideAfter: Math.max(seen.max, after.insideAtOnce),
    answers: tally(sent),
    lostAcknowledged: reading.invariants.lostAcknowledged,
    oversold: reading.invariants.oversold,
    problems: [
      ...placementProblems(placement, permitsOnNewPrimary),
      ...after.problems,
      ...concurrencyProblems(seen, settings.limit),
      ...invariantProblems(reading).map((p) => p.message),
    ],
  };
}
