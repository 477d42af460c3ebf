/**
 * runInLanes, on fake cases that take turns through the event loop: results in the cases' order whatever
 * order they end in, at most `jobs` at once, a case that runs alone with nothing beside it on the first lane
 * (every other lane closed first), and cases beside each other only within the connection room.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { type LanePlacement, runInLanes } from '../harness/scenario/case-lanes.ts';

interface FakeCase {
  id: number;
  /** Event-loop turns the case takes: later cases may end first. */
  turns: number;
  placement: LanePlacement;
}

interface Trace {
  running: Map<number, string>;
  /** For every case, the cases running when it started, and the lanes open then. */
  beside: Map<number, { others: number[]; lane: string; open: number }>;
  told: number[];
  opened: number;
  closed: number;
}

async function runFakes(cases: readonly FakeCase[], jobs: number, room: number): Promise<Trace> {
  const trace: Trace = { running: new Map(), beside: new Map(), told: [], opened: 0, closed: 0 };
  const results = await runInLanes(
    {
      first: 'first',
      open: async () => {
        trace.opened += 1;
        return `lane-${trace.opened}`;
      },
      close: async () => {
        trace.closed += 1;
      },
    },
    {
      items: cases,
      jobs,
      room,
      placement: (c) => c.placement,
      async run(c, lane) {
        trace.beside.set(c.id, {
          others: [...trace.running.keys()],
          lane,
          open: trace.opened - trace.closed,
        });
        trace.running.set(c.id, lane);
        for (let i = 0; i < c.turns; i++) await nextTurn();
        trace.running.delete(c.id);
        return c.id;
      },
      onResult: (id, index) => {
        expect(id).toBe(cases[index]?.id);
        trace.told.push(id);
      },
    },
  );
  expect(results).toEqual(cases.map((c) => c.id));
  return trace;
}

const shared = (connections = 10): LanePlacement => ({ alone: undefined, connections });
const fakes = (placements: readonly LanePlacement[]): FakeCase[] =>
  placements.map((placement, id) => ({ id, turns: ((id * 7) % 5) + 1, placement }));

describe('runInLanes', () => {
  it('runs at most `jobs` cases at once and gives every result in the cases order', async () => {
    const cases = fakes(Array.from({ length: 12 }, () => shared()));
    const trace = await runFakes(cases, 3, 1000);
    expect(trace.told).toEqual(cases.map((c) => c.id));
    expect(Math.max(...[...trace.beside.values()].map((b) => b.others.length))).toBe(2);
    // Two lanes besides the first, opened once each and closed at the end.
    expect(trace.opened).toBe(2);
    expect(trace.closed).toBe(2);
  });

  it('with jobs 1 runs one case after the other on the first lane', async () => {
    const trace = await runFakes(fakes(Array.from({ length: 5 }, () => shared())), 1, 1000);
    for (const b of trace.beside.values()) expect(b).toEqual({ others: [], lane: 'first', open: 0 });
    expect(trace.opened).toBe(0);
  });

  it('runs a case that reaches the whole server alone, on the first lane, every other lane closed', async () => {
    const alone: LanePlacement = { alone: 'it crashes the server', connections: 10 };
    const placements = [shared(), shared(), shared(), alone, shared(), shared(), alone, alone, shared()];
    const cases = fakes(placements);
    const trace = await runFakes(cases, 4, 1000);
    for (const c of cases) {
      const b = trace.beside.get(c.id);
      if (c.placement.alone) expect(b).toEqual({ others: [], lane: 'first', open: 0 });
      // Nor does any case start beside one that runs alone.
      const aloneIds = cases.filter((a) => a.placement.alone).map((a) => a.id);
      expect(b?.others.filter((o) => aloneIds.includes(o))).toEqual([]);
    }
    expect(trace.opened).toBe(trace.closed);
  });

  it('puts cases beside each other only while their connections fit the room', async () => {
    const cases = fakes([shared(160), shared(160), shared(20), shared(160), shared(20), shared(20)]);
    const trace = await runFakes(cases, 4, 290);
    for (const c of cases) {
      const others = trace.beside.get(c.id)?.others ?? [];
      const together = [c.id, ...others].reduce(
        (sum, id) => sum + (cases[id]?.placement.connections ?? 0),
        0,
      );
      expect(together).toBeLessThanOrEqual(290);
    }
  });

  it('runs a case bigger than the room by itself rather than never', async () => {
    const trace = await runFakes(fakes([shared(20), shared(400), shared(20)]), 4, 290);
    expect(trace.beside.get(1)?.others).toEqual([]);
  });
});
