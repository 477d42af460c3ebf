/**
 * The deadline of a whole case: a phase that never answers makes the case stuck, reported in one line,
 * instead of holding the run. Its clock stops while the case's clients wait for their turn on the shared
 * worker threads (ClientPool): that time is another drive's, and how much of it there is depends on what
 * runs beside the case and on the machine's speed, not on the design.
 */
import type { RunDatabase } from '../database/database.ts';

/** How many barrier timeouts a whole case may take before it is stuck (a phase that never answers). */
const CASE_DEADLINE_BARRIERS = 5;
/**
 * How many of its deadlines a case may take in all, its waits for the worker threads included: a drive
 * ahead that never ends (a worker stuck in a connect) must not hang every case behind it, and the run.
 */
const WALL_CLOCK_DEADLINES = 10;

class CaseDeadlineExceeded extends Error {}

/** A case's deadline clock: `pause` and `resume` nest, and it runs only while nothing holds it paused. */
export class CaseDeadline {
  /** Rejects once the case has had its time. */
  readonly expired: Promise<never>;
  private readonly ms: number;
  private remainingMs: number;
  private runningSince = 0;
  private pauses = 0;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly wallClock: NodeJS.Timeout;
  private expire: (error: Error) => void = () => undefined;

  constructor(timeoutMs: number) {
    this.ms = CASE_DEADLINE_BARRIERS * timeoutMs;
    this.remainingMs = this.ms;
    this.expired = new Promise<never>((_, reject) => {
      this.expire = reject;
    });
    // Only a race reads it; a case that finished in time leaves it unread.
    this.expired.catch(() => undefined);
    const allMs = WALL_CLOCK_DEADLINES * this.ms;
    this.wallClock = setTimeout(() => {
      const waits = 'with its waits for the worker threads';
      this.expire(new CaseDeadlineExceeded(`did not finish within ${allMs / 1000} s ${waits}`));
    }, allMs);
    this.run();
  }

  pause(): void {
    this.pauses += 1;
    if (this.pauses > 1 || this.stopped) return;
    clearTimeout(this.timer);
    this.remainingMs -= performance.now() - this.runningSince;
  }

  resume(): void {
    this.pauses = Math.max(0, this.pauses - 1);
    if (this.pauses === 0 && !this.stopped) this.run();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.wallClock);
  }

  private run(): void {
    this.runningSince = performance.now();
    const stuck = `did not finish within ${this.ms / 1000} s: an operation never answered`;
    this.timer = setTimeout(
      () => this.expire(new CaseDeadlineExceeded(stuck)),
      Math.max(0, this.remainingMs),
    );
  }
}

/**
 * The case's work, or a one-line failure once its deadline (a few barrier timeouts of `timeoutMs`, not
 * counting the waits for the worker threads, and ten times that in all) has passed. Whatever still runs is cut off: every other
 * backend on the run database (only this case's sessions are there) is terminated, so its locks go and the
 * case's schema can be dropped.
 */
export async function withinCaseDeadline<T>(
  work: Promise<T>,
  deadline: CaseDeadline,
  db: RunDatabase,
): Promise<T> {
  try {
    return await Promise.race([work, deadline.expired]);
  } catch (error: unknown) {
    if (error instanceof CaseDeadlineExceeded) {
      await db.admin
        .query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
        )
        .catch(() => undefined);
    }
    throw error;
  } finally {
    deadline.stop();
  }
}
