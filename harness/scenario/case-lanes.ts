/**
 * Cases run side by side in a bounded number of lanes, each lane a run database and a client pool of its
 * own, so a case's search_path, deadline and worker threads touch only its own sessions. Cases start in
 * the suite's order and their results come back in it, whatever order they finish in. A case runs beside
 * others only while their connections together fit the server's room; a case that reaches the whole
 * server (it crashes it, changes its settings, ends sessions by name) runs alone, on the first lane (the
 * run's own database, the one that can restart the server), with every other lane closed: a server crash
 * would cut their connections. Nothing here is timed: what runs beside what follows from the cases'
 * declared needs and the lane count, never from the machine.
 */

/** What the lanes need to know of a case to place it. */
export interface LanePlacement {
  /** Why the case must run with nothing beside it; undefined when it may share the server. */
  alone: string | undefined;
  /** The connections the case opens at most (its clients and the harness's own). */
  connections: number;
}

/** Where cases run: the run's own lane, and the others, opened when a case needs one and closed after. */
export interface Lanes<L> {
  first: L;
  open(): Promise<L>;
  close(lane: L): Promise<void>;
}

export interface LaneRun<T, L, R> {
  items: readonly T[];
  /** Lanes at most, the first included; 1 runs every case after the other. */
  jobs: number;
  /** Connections every case running at once may open together. */
  room: number;
  placement(item: T): LanePlacement;
  run(item: T, lane: L): Promise<R>;
  /** Told each result in the items' order, as soon as it and every earlier one are in. */
  onResult?(result: R, index: number): void;
}

/** Runs every item, at most `jobs` at once, and returns the results in the items' order. */
export async function runInLanes<T, L, R>(lanes: Lanes<L>, work: LaneRun<T, L, R>): Promise<R[]> {
  const results: R[] = [];
  const settled: boolean[] = [];
  let told = 0;
  const tell = () => {
    for (; told < work.items.length && settled[told]; told++) work.onResult?.(results[told] as R, told);
  };
  const free: L[] = [lanes.first];
  const opened: L[] = [];
  const running = new Map<number, Promise<void>>();
  let inUse = 0;
  const closeOthers = async () => {
    for (const lane of opened.splice(0)) await lanes.close(lane);
    free.splice(0, free.length, lanes.first);
  };
  try {
    for (let index = 0; index < work.items.length; index++) {
      const item = work.items[index] as T;
      const { alone, connections } = work.placement(item);
      const fits = () =>
        running.size === 0 ||
        (alone === undefined && running.size < work.jobs && inUse + connections <= work.room);
      while (!fits()) await Promise.race(running.values());
      // With every other lane closed, the only free lane is the first.
      if (alone !== undefined) await closeOthers();
      let lane = free.pop();
      if (lane === undefined) {
        lane = await lanes.open();
        opened.push(lane);
      }
      const on = lane;
      inUse += connections;
      running.set(
        index,
        work.run(item, on).then((result) => {
          results[index] = result;
          settled[index] = true;
          running.delete(index);
          inUse -= connections;
          free.push(on);
          tell();
        }),
      );
      // An alone case has the server to itself until it ends.
      if (alone !== undefined) await running.get(index);
    }
    await Promise.all(running.values());
  } finally {
    await Promise.allSettled(running.values());
    await closeOthers();
  }
  return results;
}
