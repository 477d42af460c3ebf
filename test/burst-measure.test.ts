/**
 * The burst's own arithmetic, without a server: how requests and connections are dealt over processes and
 * threads, the clients' seeded backoff, what the records measure, and each check of the judgement broken
 * on its own by a fixture of records that fails exactly it (test/burst.test.ts runs real bursts).
 */
import { describe, expect, it } from 'vitest';
import {
  auditBurst,
  burstProblems,
  burstTimeline,
  measureBurst,
  TIMELINE_STEPS,
} from '../harness/bench/burst-measure.ts';
import { burstLayout, planShares } from '../harness/bench/burst-plan.ts';
import { backoffs, DEFAULT_RETRY } from '../harness/bench/burst-retry.ts';
import { type BurstRecord, GAVE_UP } from '../harness/bench/burst-task.ts';

const RELEASE = 1_000;

/** `outcomes` in arrival order, one ms apart from the release on, each answered 10 ms after it arrived. */
const records = (outcomes: readonly string[]): BurstRecord[] =>
  outcomes.map((outcome, request) => ({
    request,
    arrivedAt: RELEASE + request,
    answeredAt: RELEASE + request + 10,
    outcome,
    retries: outcome === GAVE_UP ? 3 : 0,
  }));

const sale = (held: number, soldOut: number) => [
  ...Array.from({ length: held }, () => 'HELD'),
  ...Array.from({ length: soldOut }, () => 'SOLD_OUT'),
];

describe('burst plan', () => {
  it('deals every request once and every connection over processes and threads', () => {
    for (const given of [
      { requests: 150, threads: 2 },
      { requests: 10_000, threads: 2 },
      { requests: 300, threads: 2, processes: 2, connections: 20 },
      { requests: 7, threads: 4, processes: 3 },
    ]) {
      const layout = burstLayout(given.requests, given);
      const shares = planShares(layout, 'burst_schema');
      expect(shares).toHaveLength(layout.processes);
      const all = shares.flat();
      expect(all.flatMap((s) => s.requests).sort((a, b) => a - b)).toEqual(
        Array.from({ length: given.requests }, (_, i) => i),
      );
      expect(all.reduce((n, s) => n + s.connections, 0)).toBe(layout.connections);
      expect(all.every((s) => s.connections >= 1)).toBe(true);
      for (const process of shares) expect(process.length).toBeLessThanOrEqual(given.threads);
      expect(new Set(all.map((s) => s.node.name)).size).toBe(all.length);
    }
  });

  it("takes the flash-sale lab's 150 connections at most, one process per 2,500 requests", () => {
    expect(burstLayout(150, { threads: 2 })).toMatchObject({ connections: 150, processes: 1 });
    expect(burstLayout(40, { threads: 2 })).toMatchObject({ connections: 40, processes: 1 });
    expect(burstLayout(10_000, { threads: 2 })).toMatchObject({ connections: 150, processes: 4 });
  });
});

describe('burst retry', () => {
  it('draws full-jitter backoffs within the cap, the same for the same seed and share', () => {
    const policy = { ...DEFAULT_RETRY, seed: 7 };
    const draw = (share: number) => {
      const next = backoffs(policy, share);
      return Array.from({ length: 12 }, (_, retry) => next(retry));
    };
    const first = draw(0);
    expect(draw(0)).toEqual(first);
    expect(draw(1)).not.toEqual(first);
    first.forEach((ms, retry) => {
      expect(ms).toBeGreaterThanOrEqual(0);
      expect(ms).toBeLessThanOrEqual(Math.min(policy.capMs, policy.baseMs * 2 ** retry));
    });
  });
});

describe('burst measures', () => {
  it('counts every answer, times from the release, and fairness over the first arrivals', () => {
    const rs = records([...sale(2, 1), 'HELD', 'SOLD_OUT', GAVE_UP]);
    const m = measureBurst(rs, RELEASE, 3);
    expect(m.outcomes).toEqual({ HELD: 3, SOLD_OUT: 2, [GAVE_UP]: 1 });
    expect(m.answered).toBe(6);
    expect(m.retries).toBe(3);
    expect(m.soldOutMs).toBe(13);
    expect(m.answeredMs).toBe(15);
    expect(m.fairness).toEqual({ firstArrivals: 3, held: 2 });
    expect(m.latency.max).toBe(15);
    expect(m.early).toBe(0);
  });

  it('has no sold-out time when the units did not all go', () => {
    expect(measureBurst(records(sale(2, 0)), RELEASE, 40).soldOutMs).toBeNull();
  });
});

describe('burst judgement', () => {
  const judge = (rs: BurstRecord[], stock: number, requests: number, remaining: number) => {
    const m = measureBurst(rs, RELEASE, stock);
    return burstProblems(requests, stock, m, auditBurst(stock, remaining, m.outcomes.HELD ?? 0));
  };

  it('passes a burst that answered everyone and sold exactly min(stock, requests)', () => {
    expect(judge(records(sale(40, 110)), 40, 150, 0)).toEqual([]);
    expect(judge(records(sale(10, 0)), 40, 10, 30)).toEqual([]);
  });

  it('fails each broken burst for its own reason', () => {
    expect(judge(records(sale(45, 105)), 40, 150, -5)).toEqual(['oversold 5']);
    expect(judge(records(sale(40, 109)), 40, 150, 0)).toEqual(['149 of 150 requests answered']);
    expect(judge(records(sale(40, 110)), 40, 150, 1)).toEqual(['drift -1']);
    expect(judge(records(sale(39, 111)), 40, 150, 1)).toEqual([
      '1 unit(s) left unsold: HELD 39 of min(stock, requests) = 40',
    ]);
    expect(judge(records([...sale(39, 110), GAVE_UP]), 40, 150, 1)).toEqual([
      '1 unit(s) left unsold: HELD 39 of min(stock, requests) = 40 (1 gave up after their last 503)',
    ]);
    const leaked = records(sale(40, 110)).map((r, i) => (i === 0 ? { ...r, arrivedAt: RELEASE - 1 } : r));
    expect(judge(leaked, 40, 150, 0)).toEqual(['not exercised: 1 request(s) arrived before the release']);
  });
});

describe('burst timeline', () => {
  it('counts units left and answers at even steps from the release to the last answer', () => {
    // Answered at 10..19 ms: the three HELD first, then seven SOLD_OUT.
    const timeline = burstTimeline(records(sale(3, 7)), RELEASE, 3);
    expect(timeline).toHaveLength(TIMELINE_STEPS + 1);
    expect(timeline[0]).toEqual({ ms: 0, unitsLeft: 3, answered: 0 });
    expect(timeline.at(-1)).toEqual({ ms: 19, unitsLeft: 0, answered: 10 });
    for (const [i, point] of timeline.entries()) {
      const before = timeline[i - 1];
      if (!before) continue;
      expect(point.ms).toBeGreaterThan(before.ms);
      expect(point.unitsLeft).toBeLessThanOrEqual(before.unitsLeft);
      expect(point.answered).toBeGreaterThanOrEqual(before.answered);
    }
    // The last unit went with the answer at 12 ms: the first step past it has none left.
    expect(timeline.find((p) => p.ms >= 12)?.unitsLeft).toBe(0);
    expect(timeline.findLast((p) => p.ms < 12)?.unitsLeft).toBeGreaterThan(0);
  });
});
