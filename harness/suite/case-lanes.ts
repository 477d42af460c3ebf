/**
 * Cases run side by side in a bounded number of lanes, each lane a run database of its own, so a case's
 * search_path, deadline and worker threads touch only its own sessions. Results come back in the items'
 * order, whatever order the cases start (`startOrder`) or finish in. A case runs beside others only while
 * their connections together fit the server's room. A case that reaches the whole server (it crashes it,
 * changes its settings) runs with no other case on its server: on a server of its own when the lanes have
 * one (`Lanes.own`, the embedded server: such cases go there one after another while the others go on),
 * else on the first lane (the run's own database, the one that can restart the server) with every other
 * lane closed, since a crash would cut their connections. Nothing here is timed: what runs beside what
 * follows from the cases' declared needs and the lane count, never from the machine.
 */

/** What the lanes need to know of a case to place it. */
export interface LanePlacement {
  /** Why the case must run with nothing beside it on its server; undefined when it may share the server. */
  alone: string | undefined;
  /** The connections the case opens at most (its clients and the harness's own). */
  connections: number;
}

/** Lanes that are opened when a case needs one and closed after the run. */
export interface LaneSource<L> {
  open(): Promise<L>;
  close(lane: L): Promise<void>;
}

/** Where cases run: the run's own lane, and the others, opened when a case needs one and closed after. */
export interface Lanes<L> extends LaneSource<L> {
  first: L;
  /**
   * The lane on a server of its own, for the cases that must run alone on theirs; absent when the run
   * cannot start one (a server given by URL).
   */
  own?: LaneSource<L>;
}

export interface LaneRun<T, L, R> {
  items: readonly T[];
  /** The items' indexes in the order they start (default: the items' order); results keep the items'. */
  startOrder?: readonly number[];
  /** Cases at once at most, the first lane's and the own server's included; 1 runs each after the other. */
  jobs: number;
  /** Connections every case running at once on the run's server may open together. */
  room: number;
  placement(item: T): LanePlacement;
  run(item: T, lane: L): Promise<R>;
  /** Told each result in the items' order, as soon as it and every earlier one are in. */
  onResult?(result: R, index: number): void;
}

/** The state of one call of runInLanes: what runs, what is free, what was told. */
class LaneScheduler<T, L, R> {
  readonly results: R[] = [];
  private readonly settled: boolean[] = [];
  private told = 0;
  readonly free: L[];
  readonly opened: L[] = [];
  readonly running = new Map<number, Promise<void>>();
  /** Jobs taken by a case that has not started yet (its lane is being opened). */
  private reserved = 0;
  private inUse = 0;

  constructor(
    private readonly lanes: Lanes<L>,
    private readonly work: LaneRun<T, L, R>,
  ) {
    this.free = [lanes.first];
  }

  /**
   * Takes a job for a case with `connections`, once it may start beside what runs (at once when nothing
   * does); `launch` starts it. Taken in the same turn as the check, so two waiting starters never both
   * take the last job.
   */
  async acquire(connections: number, alone = false): Promise<void> {
    const busy = () => this.running.size + this.reserved;
    const fits = () =>
      busy() === 0 || (!alone && busy() < this.work.jobs && this.inUse + connections <= this.work.room);
    while (!fits()) await Promise.race(this.running.values());
    this.reserved += 1;
    this.inUse += connections;
  }

  /** Starts item `index` on `lane` with the job acquired for it; `done` is told when it ends. */
  launch(index: number, lane: L, connections: number, done: () => void): Promise<void> {
    this.reserved -= 1;
    const running = this.work.run(this.work.items[index] as T, lane).then((result) => {
      this.results[index] = result;
      this.settled[index] = true;
      this.running.delete(index);
      this.inUse -= connections;
      done();
      this.tell();
    });
    this.running.set(index, running);
    return running;
  }

  private tell(): void {
    const { items, onResult } = this.work;
    for (; this.told < items.length && this.settled[this.told]; this.told++)
      onResult?.(this.results[this.told] as R, this.told);
  }

  /** A free lane of the run's server, opening one when none is. */
  async lane(): Promise<L> {
    const free = this.free.pop();
    if (free !== undefined) return free;
    const lane = await this.lanes.open();
    this.opened.push(lane);
    return lane;
  }

  async closeOthers(): Promise<void> {
    for (const lane of this.opened.splice(0)) await this.lanes.close(lane);
    this.free.splice(0, this.free.length, this.lanes.first);
  }
}

/**
 * The cases that must run alone, one after another on the own server's lane (opened at the first), each
 * when a job is free: they wait for each other, never for the cases on the run's server.
 */
class OwnServerQueue<L> {
  private lane: L | undefined;
  private queue: Promise<void> = Promise.resolve();
  private failure: { error: unknown } | undefined;
  private cancelled = false;

  constructor(
    private readonly source: LaneSource<L>,
    private readonly scheduler: LaneScheduler<unknown, L, unknown>,
  ) {}

  add(index: number): void {
    this.queue = this.queue.then(async () => {
      if (this.failure || this.cancelled) return;
      try {
        this.lane ??= await this.source.open();
        // The own server's room is its own: the case counts no connection on the run's.
        await this.scheduler.acquire(0);
        await this.scheduler.launch(index, this.lane, 0, () => undefined);
      } catch (error: unknown) {
        this.failure = { error };
      }
    });
  }

  async finish(): Promise<void> {
    await this.queue;
    if (this.failure) throw this.failure.error;
  }

  /** Starts no more of its cases, lets the one running end, and closes the lane. */
  async close(): Promise<void> {
    this.cancelled = true;
    await this.queue;
    if (this.lane !== undefined) await this.source.close(this.lane);
  }
}

/** Runs every item, at most `jobs` at once, and returns the results in the items' order. */
export async function runInLanes<T, L, R>(lanes: Lanes<L>, work: LaneRun<T, L, R>): Promise<R[]> {
  const scheduler = new LaneScheduler(lanes, work);
  const own =
    lanes.own && work.jobs > 1
      ? new OwnServerQueue(lanes.own, scheduler as LaneScheduler<unknown, L, unknown>)
      : undefined;
  try {
    for (const index of work.startOrder ?? work.items.keys()) {
      const { alone, connections } = work.placement(work.items[index] as T);
      if (alone !== undefined && own) {
        own.add(index);
        continue;
      }
      // An alone case starts with nothing running; every other lane is closed first, so the only free
      // lane is the first, and it has the server to itself until it ends.
      await scheduler.acquire(connections, alone !== undefined);
      if (alone !== undefined) await scheduler.closeOthers();
      const lane = await scheduler.lane();
      const running = scheduler.launch(index, lane, connections, () => scheduler.free.push(lane));
      if (alone !== undefined) await running;
    }
    await own?.finish();
    await Promise.all(scheduler.running.values());
  } finally {
    await Promise.allSettled(scheduler.running.values());
    await own?.close();
    await scheduler.closeOthers();
  }
  return scheduler.results;
}
