/**
 * Load agents without a process: one seeded series split over agents (client i and arrival i to agent
 * i mod N, every one exactly once, payment pairs whole, nodes numbered across every agent's threads), an
 * agent's part kept only if its code is the bench's, and the agents' parts added up — counts summed and
 * histograms added bucket for bucket, so the merged percentiles are those of every sample together. The
 * control is the merge a dashboard does by averaging each agent's p99: it is no percentile of anything.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as hdr from 'hdr-histogram-js';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { describe, expect, inject, it } from 'vitest';
import { onServerClock } from '../harness/bench/agents/agent-burst.ts';
import { agentClients, planAgentShares } from '../harness/bench/agents/agent-plan.ts';
import {
  type AgentTrialResult,
  addLatencies,
  agentTrialResult,
  mergedLatencies,
  sumOpenCounts,
} from '../harness/bench/agents/agent-result.ts';
import { agentDesign, localModuleUrl } from '../harness/bench/agents/agent-task.ts';
import { arrivalTimes, shareOfArrivals } from '../harness/bench/arrivals.ts';
import type { BenchThreadResult } from '../harness/bench/bench-task.ts';
import { auditBurst, burstProblems, measureBurst } from '../harness/bench/burst-measure.ts';
import { burstLayout, planShares } from '../harness/bench/burst-plan.ts';
import type { BurstRecord, ShareResult } from '../harness/bench/burst-task.ts';
import { emptyTally, recordAnswer } from '../harness/bench/open-model.ts';
import { sumTrialCounts } from '../harness/bench/run-bench.ts';
import { latencyHistogram, latencyMicros, summarizeLatency } from '../harness/driver/latency.ts';

const take = (schedule: Iterator<number>, n: number) =>
  Array.from({ length: n }, () => schedule.next().value);

describe('one series split over agents', () => {
  it('deals client i to agent i mod N, and a payment pair whole to agent pair mod N', () => {
    expect(agentClients('reservation', 7, 3)).toEqual([
      [0, 3, 6],
      [1, 4],
      [2, 5],
    ]);
    expect(agentClients('payment', 7, 2)).toEqual([
      [0, 1, 4, 5],
      [2, 3, 6],
    ]);
  });

  it("deals arrival i to agent i mod N, each agent's to its threads in turn, every one exactly once", () => {
    const settings = { rate: 500, arrivals: 'poisson' as const, seed: 7 };
    // Three agents offering 2, 1 and 4 threads; 9 clients: 3 each, so the third uses 3 of its 4.
    const shares = planAgentShares('reservation', 9, 'c001_bench', [2, 1, 4]);
    expect(shares.map((s) => s.threads.length)).toEqual([2, 1, 3]);
    const whole = take(arrivalTimes(settings), 1800);
    const byAgent = shares.map((share) =>
      share.threads.flatMap((t) =>
        take(shareOfArrivals(settings, t.arrivals.first, t.arrivals.stride), 1800 / 3 / share.threads.length),
      ),
    );
    byAgent.forEach((mine, k) => {
      expect([...mine].sort((a, b) => a - b)).toEqual(whole.filter((_, i) => i % 3 === k));
    });
    // Nodes: one per thread in use, numbered across the agents, each knowing the total.
    const nodes = shares.flatMap((s) => s.threads.map((t) => t.node));
    expect(nodes.map((n) => n.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(new Set(nodes.map((n) => n.count))).toEqual(new Set([6]));
    expect(shares.flatMap((s) => s.threads.flatMap((t) => t.clients)).sort()).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8,
    ]);
  });

  it('refuses a split that would leave an agent without a client', () => {
    expect(() => planAgentShares('payment', 3, 'c001_bench', [1, 1, 1])).toThrow(
      /agent 3 of 3 would have no client/,
    );
  });
});

describe('one burst split over agents', () => {
  it('deals request i to agent i mod N (each agent one process of the burst), every one exactly once', () => {
    const layout = burstLayout(1_001, { processes: 3, threads: 2 });
    const agents = planShares(layout, 's');
    expect(agents).toHaveLength(3);
    agents.forEach((shares, k) => {
      const mine = shares.flatMap((share) => share.requests);
      expect(mine.every((request) => request % 3 === k)).toBe(true);
    });
    const all = agents.flatMap((shares) => shares.flatMap((share) => share.requests));
    expect(all.sort((a, b) => a - b)).toEqual(Array.from({ length: 1_001 }, (_, i) => i));
  });

  // An agent's process clock is its own host's: 10^9 ms off the server's here. Its share was granted
  // the release lock at 500 on its clock, at server time 1,700,000,000,000.5.
  const SERVER_RELEASE = 1_700_000_000_000;
  const share: ShareResult = {
    release: { grantedAt: 500, serverMs: SERVER_RELEASE + 0.5 },
    records: [
      { request: 0, arrivedAt: 500.5, answeredAt: 510, outcome: 'HELD', retries: 0 },
      { request: 2, arrivedAt: 501, answeredAt: 530, outcome: 'SOLD_OUT', retries: 0 },
    ],
  };
  const judged = (records: readonly BurstRecord[]) => {
    const measures = measureBurst(records, SERVER_RELEASE, 1);
    return { measures, problems: burstProblems(2, 1, measures, auditBurst(1, 0, 1)) };
  };

  it("measures an agent's requests from the release on the server's clock, whatever its own", () => {
    const onServer = onServerClock(share);
    expect(onServer.map((r) => r.answeredAt - SERVER_RELEASE)).toEqual([10.5, 30.5]);
    const { measures, problems } = judged(onServer);
    expect(measures).toMatchObject({ soldOutMs: 10.5, answeredMs: 30.5, early: 0 });
    expect(problems).toEqual([]);
  });

  it('fails as not exercised when the records stay on the agent’s clock (the control)', () => {
    expect(judged(share.records).problems).toEqual([
      'not exercised: 2 request(s) arrived before the release',
    ]);
  });
});

describe("an agent's copy of the design", () => {
  const builtIn = new URL('../strategies/hot-row.ts', import.meta.url).href;

  it('is found inside its own suite and kept, knobs and all, when its code is the bench’s', () => {
    const design = agentDesign(
      'bucketed[buckets=16]',
      new URL('../strategies/bucketed.ts#buckets=16', import.meta.url).href,
    );
    expect(design.file).toBe('strategies/bucketed.ts');
    expect(localModuleUrl(design)).toMatch(/\/strategies\/bucketed\.ts#buckets=16$/);
  });

  it('is refused when it is not the code the bench ran', () => {
    const design = agentDesign('hot-row', builtIn);
    expect(() => localModuleUrl({ ...design, sha256: '0'.repeat(64) })).toThrow(
      /not the bench's code .*run the same code on every agent/,
    );
    const scratch = inject('scratch');
    const elsewhere = join(scratch, 'gone-design.ts');
    expect(() => localModuleUrl({ ...design, file: elsewhere })).toThrow(
      /no .*gone-design\.ts on this agent's host/,
    );
    writeFileSync(elsewhere, 'export default {};\n');
    expect(() => localModuleUrl({ ...design, file: elsewhere })).toThrow(/not the bench's code/);
  });
});

/** Latencies in ms from a seeded generator: `scale` × u⁴, a long tail. */
function samples(seed: number, n: number, scaleMs: number): number[] {
  const rng = xoroshiro128plus(seed);
  return Array.from({ length: n }, () => 0.05 + uniformFloat64(rng) ** 4 * scaleMs);
}

/** What an agent's threads counted, with these latencies all HELD; open: each also timed from its send. */
function threadResult(latenciesMs: number[], open: boolean): BenchThreadResult {
  const tally = emptyTally();
  for (const ms of latenciesMs) recordAnswer(tally, { dueMs: 0, sentMs: ms / 3, answeredMs: ms }, true, 50);
  tally.dropped = latenciesMs.length % 7;
  return {
    latenciesMs,
    outcomes: { HELD: latenciesMs.length - 3, SOLD_OUT: 3 },
    errorsBySqlstate: {},
    rejected: 0,
    designRetries: { version: latenciesMs.length % 5 },
    heldTotal: latenciesMs.length + 11,
    ...(open ? { open: tally } : {}),
  };
}

const part = (latenciesMs: number[], open = false): AgentTrialResult =>
  agentTrialResult(threadResult(latenciesMs, open), {
    host: 'h',
    pid: 1,
    cores: 2,
    threads: 1,
    clients: 1,
    seconds: 1,
    generatorCores: 0.5,
  });

describe("the agents' parts added up", () => {
  // One agent near the server, one far from it: the two distributions differ a hundredfold.
  const near = samples(1, 20_000, 8);
  const far = samples(2, 5_000, 800);
  const all = [...near, ...far];

  it('merges histograms into the one built from every sample, and sums every count', () => {
    const parts = [part(near, true), part(far, true)];
    const merged = mergedLatencies(parts.map((p) => p.latency));
    const whole = latencyHistogram();
    for (const ms of all) whole.recordValue(latencyMicros(ms));
    // Bucket for bucket: the same counts encode to the same bytes.
    expect(merged.histogram).toBe(hdr.encodeIntoCompressedBase64(whole));
    expect(merged.count).toBe(all.length);
    expect(merged.latency).toEqual(summarizeLatency(all));
    const service = addLatencies(parts.flatMap((p) => (p.open ? [p.open.service] : [])));
    expect(service.totalCount).toBe(all.length);
    service.destroy();
    whole.destroy();

    const counts = sumTrialCounts(parts.map((p) => p.counts));
    expect(counts).toEqual({
      outcomes: { HELD: all.length - 6, SOLD_OUT: 6 },
      errorsBySqlstate: {},
      rejected: 0,
      designRetries: { version: (near.length % 5) + (far.length % 5) },
      heldTotal: all.length + 22,
    });
    expect(sumOpenCounts(parts)).toEqual({
      sent: all.length,
      dropped: (near.length % 7) + (far.length % 7),
      late: parts.reduce((n, p) => n + (p.open?.counts.late ?? 0), 0),
      goodHeld: parts.reduce((n, p) => n + (p.open?.counts.goodHeld ?? 0), 0),
    });
  });

  it('is not what averaging the agents’ percentiles gives (the control)', () => {
    const mine = [near, far].map((s) => summarizeLatency(s).p99);
    const averaged = ((mine[0] ?? 0) + (mine[1] ?? 0)) / 2;
    const truth = summarizeLatency(all).p99;
    expect(mergedLatencies([part(near).latency, part(far).latency]).latency.p99).toBe(truth);
    // The far agent holds a fifth of the samples, so the p99 of all is deep in its tail, not halfway.
    expect(Math.abs(averaged - truth) / truth).toBeGreaterThan(0.2);
  });
});
