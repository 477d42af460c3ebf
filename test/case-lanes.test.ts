/**
 * runInLanes, on fake cases that take turns through the event loop: results in the cases' order whatever
 * order they start or end in, at most `jobs` at once, a case that runs alone with nothing beside it on the
 * first lane (every other lane closed first) or, where the lanes have a server of their own, there one after
 * another while the others go on, and cases beside each other only within the connection room.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { type LanePlacement, runInLanes } from '../harness/suite/case-lanes.ts';

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
  started: number[];
  opened: number;
  closed: number;
  /** The own server's lane: opened, closed. */
  own: { opened: number; closed: number };
}

interface FakeRun {
  jobs: number;
  room: number;
  /** The lanes have a server of their own for the cases that run alone. */
  own?: boolean;
  startOrder?: readonly number[];
}

async function runFakes(
  cases: readonly FakeCase[],
  { jobs, room, own, startOrder }: FakeRun,
): Promise<Trace> {
  const trace: Trace = {
    running: new Map(),
    beside: new Map(),
    told: [],
    started: [],
    opened: 0,
    closed: 0,
    own: { opened: 0, closed: 0 },
  };
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
      ...(own
        ? {
            own: {
              open: async () => {
                trace.own.opened += 1;
                return 'own';
              },
              close: async () => {
                trace.own.closed += 1;
              },
            },
          }
        : {}),
    },
    {
      items: cases,
      jobs,
      room,
      ...(startOrder ? { startOrder } : {}),
      placement: (c) => c.placement,
      async run(c, lane) {
        trace.started.push(c.id);
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
    const trace = await runFakes(cases, { jobs: 3, room: 1000 });
    expect(trace.told).toEqual(cases.map((c) => c.id));
    expect(Math.max(...[...trace.beside.values()].map((b) => b.others.length))).toBe(2);
    // Two lanes besides the first, opened once each and closed at the end.
    expect(trace.opened).toBe(2);
    expect(trace.closed).toBe(2);
  });

  it('with jobs 1 runs one case after the other on the first lane', async () => {
    const trace = await runFakes(fakes(Array.from({ length: 5 }, () => shared())), { jobs: 1, room: 1000 });
    for (const b of trace.beside.values()) expect(b).toEqual({ others: [], lane: 'first', open: 0 });
    expect(trace.opened).toBe(0);
  });

  it('runs a case that reaches the whole server alone, on the first lane, every other lane closed', async () => {
    const alone: LanePlacement = { alone: 'it crashes the server', connections: 10 };
    const placements = [shared(), shared(), shared(), alone, shared(), shared(), alone, alone, shared()];
    const cases = fakes(placements);
    const trace = await runFakes(cases, { jobs: 4, room: 1000 });
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
    const trace = await runFakes(cases, { jobs: 4, room: 290 });
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
    const trace = await runFakes(fakes([shared(20), shared(400), shared(20)]), { jobs: 4, room: 290 });
    expect(trace.beside.get(1)?.others).toEqual([]);
  });

  it('runs the alone cases one after another on a server of their own while the others go on', async () => {
    const alone: LanePlacement = { alone: 'it crashes the server', connections: 10 };
    const placements = [shared(), alone, alone, shared(), alone, shared(), shared(), shared(), alone];
    const cases = fakes(placements);
    const trace = await runFakes(cases, { jobs: 3, room: 1000, own: true });
    const aloneIds = cases.filter((c) => c.placement.alone).map((c) => c.id);
    for (const c of cases) {
      const b = trace.beside.get(c.id);
      expect(b?.lane === 'own').toBe(c.placement.alone !== undefined);
      // Never two on the own server, never more than `jobs` at once.
      if (c.placement.alone) expect(b?.others.filter((o) => aloneIds.includes(o))).toEqual([]);
      expect(b?.others.length).toBeLessThan(3);
    }
    // Beside each other on different servers: the run did not wait for the alone cases.
    expect([...trace.beside.values()].some((b) => b.lane === 'own' && b.others.length > 0)).toBe(true);
    expect(trace.own).toEqual({ opened: 1, closed: 1 });
    expect(trace.told).toEqual(cases.map((c) => c.id));
  });

  it('with jobs 1 runs the alone cases on the first lane, the own server never started', async () => {
    const alone: LanePlacement = { alone: 'it crashes the server', connections: 10 };
    const trace = await runFakes(fakes([shared(), alone, shared()]), { jobs: 1, room: 1000, own: true });
    expect(trace.beside.get(1)).toEqual({ others: [], lane: 'first', open: 0 });
    expect(trace.own.opened).toBe(0);
  });

  it('starts the cases in the start order it is given and tells them in the items order', async () => {
    const cases = fakes(Array.from({ length: 6 }, () => shared()));
    const trace = await runFakes(cases, { jobs: 2, room: 1000, startOrder: [5, 4, 0, 1, 2, 3] });
    expect(trace.started.slice(0, 2)).toEqual([5, 4]);
    expect(trace.told).toEqual(cases.map((c) => c.id));
  });
});
