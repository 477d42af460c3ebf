/**
 * What a case drove, kept in one place while it happens: the requests sent and the answers they got, the
 * contract operations exercised and the pause points they stopped at, the lifecycle facts the audit needs
 * (keys released, whether expiry ran, skus disabled), the scenario's observations, and its phases. Every
 * operation a driver runs passes through the one method of its kind, which notes the operation when it is
 * invoked and its answer when that is in; the drivers read nothing back but the `Driven` at the end.
 */

import {
  type NodeIdentity,
  type PausePoint,
  type ReserveRequest,
  type ReserveResult,
  UNDECIDED_PAUSE_POINTS,
} from '../../../../strategies/contract.ts';
import { harnessNow } from '../../../history/recorder.ts';
import type { Step, StepRecord, StepResult } from '../../../interleaving/permutation.ts';
import type { ClientScript, RequestResult } from '../driver/client-task.ts';
import { recordResults } from '../history/request-history.ts';
import type {
  Answer,
  Call,
  KeyStatus as KeyStatusAnswer,
  ReservationRecorder,
} from '../history/reservation-operations.ts';
import type { OperationStep, ReadStep, ReserveStep } from '../spec/reservation-steps.ts';
import type { CrashOperation } from './crash-operation.ts';
import type { Driven } from './driven.ts';
import { PhaseRecorder } from './phases.ts';
import type { LifecycleOperation, Observations, Observed } from './scenario.ts';

/** A step of an interleaving that reads the strategy's state, waits on the database clock or restarts a node. */
export type EventStep = ReadStep | Extract<Step, { waitMs: number } | { restart: unknown }>;

/** A step of an interleaving that calls the strategy: a reserve or a lifecycle operation. */
export type CallStep = ReserveStep | OperationStep;

/** What a lifecycle operation's answer is: rows moved or not, units expiry gave back; backdate has none. */
type LifecycleAnswer = boolean | number | undefined;

/** The observation an interleaving's lifecycle steps sum their answers into. */
const SUMMED_AS: Partial<Record<LifecycleOperation, string>> = {
  expire: 'unitsReturned',
  confirm: 'confirmed',
  disable: 'disabled',
  release: 'released',
};

/** The lifecycle operations whose answers the books are checked against (booksMatchAnswers). */
const MOVES_UNITS: readonly LifecycleOperation[] = ['confirm', 'release', 'expire'];

/** What a lifecycle step moved, for its phase: units back, a row moved or not, how many keys backdated. */
function movedBy(answer: LifecycleAnswer, target: string | readonly string[] | undefined) {
  if (typeof answer === 'number') return { n: answer, unit: 'units back' };
  if (typeof answer === 'boolean') return { n: answer ? 1 : 0, unit: 'moved' };
  return typeof target === 'object' ? { n: target.length, unit: 'keys' } : undefined;
}

/** A reserve step's final answer as a client's (a paused step has none: its RESUME step carries it). */
function answerOf(request: ReserveRequest, result: StepResult): RequestResult | undefined {
  const base = { requestKey: request.requestKey, user: request.user, sku: request.sku, latencyMs: 0 };
  if (result.status === 'error') {
    return {
      ...base,
      // A kill at a pause point is the case's own fault: the answer it cut off is unknown, not an error.
      outcome: result.killed ? 'INDETERMINATE' : 'ERROR',
      error: result.error,
      ...(result.sqlstate ? { sqlstate: result.sqlstate } : {}),
    };
  }
  if (result.rolledBack) return { ...base, outcome: 'ROLLED_BACK' };
  return result.answer ? { ...base, ...(result.answer as ReserveResult) } : undefined;
}

/** What a lifecycle operation asked, for the history. */
function lifecycleCall(operation: LifecycleOperation, target: string | readonly string[] | undefined): Call {
  const one = typeof target === 'string' ? target : '';
  switch (operation) {
    case 'confirm':
    case 'release':
      return { op: operation, requestKey: one };
    case 'disable':
      return { op: 'disable', sku: one };
    case 'expire':
      return { op: 'expire' };
    case 'backdate':
      return { op: 'backdate', requestKeys: typeof target === 'object' ? target : [one] };
  }
}

/** A lifecycle answer as the history's: rows moved or not, units back, or done (backdate). */
function lifecycleAnswer(answer: LifecycleAnswer): Answer {
  if (typeof answer === 'number') return { units: answer };
  if (typeof answer === 'boolean') return { moved: answer };
  return { done: true };
}

export class CaseRecord {
  private readonly sent: ReserveRequest[] = [];
  private readonly answers: RequestResult[] = [];
  private readonly exercised = new Set<string>();
  private readonly pausePoints = new Set<string>();
  private readonly observations: Observations = {};
  private readonly released = new Set<string>();
  private readonly disabled = new Set<string>();
  private readonly confirmed = new Set<string>();
  private unitsExpired = 0;
  /** Lifecycle calls that moved units (confirm, release, expire) whose answer never came. */
  private unanswered = 0;
  private expireRan = false;
  private readonly phases = new PhaseRecorder();
  /** The identity each node last served in: a new incarnation is a restart, a step of its own. */
  private readonly incarnations = new Map<string, NodeIdentity>();
  /** The batch the requests a scenario sends over HTTP belong to, until their answers are in. */
  private overHttp: { done: (from: number, to: number) => void; sentAt: number } | undefined;
  /** The ttl each request asked for, for the history (a result does not carry it). */
  private readonly ttls = new Map<string, number>();

  /** Each interleaving session's operation still running (paused at a point): its RESUME step ends it. */
  private readonly running = new Map<
    string,
    { call: Call; invokedAt: number; node: string; undecided?: boolean }
  >();
  /** Lifecycle steps and reads of an interleaving that failed with an error (a reserve's is its answer). */
  private readonly failures: { sqlstate?: string | undefined; error: string }[] = [];

  /** `history` is told every operation with its times, its session and its answer. */
  constructor(private readonly history: ReservationRecorder) {}

  /**
   * Clients started together on the worker-thread driver (or one reserve on a session of the scenario's
   * own): one batch from when `run` sends them until their answers are in.
   */
  async reserve<R extends readonly RequestResult[]>(
    clients: readonly ClientScript[],
    run: () => Promise<R>,
  ): Promise<R> {
    const requests = clients.flatMap((c) => c.requests);
    this.sending(requests);
    for (const { rollbackAt, node } of clients) {
      if (rollbackAt) this.pausePoints.add(`reserve:${rollbackAt}`);
      if (node) this.nodeServes(node);
    }
    const done = this.phases.send(requests.map((r) => r.requestKey));
    const sentAt = harnessNow();
    const results = await run();
    this.answered(results, { sentAt, answeredAt: harnessNow(), session: 'client' });
    this.collect(results, done);
    return results;
  }

  /** A lifecycle operation of the strategy (`target`: the key or sku it acts on, the keys backdated). */
  async lifecycle<T extends LifecycleAnswer>(
    operation: LifecycleOperation,
    target: string | readonly string[] | undefined,
    run: () => Promise<T>,
    session = 'job',
  ): Promise<T> {
    this.ran(operation);
    const call = lifecycleCall(operation, target);
    try {
      const answer = await this.history.around(call, { session }, run, lifecycleAnswer);
      this.lifecycleAnswered(operation, target, answer);
      return answer;
    } catch (error: unknown) {
      if (MOVES_UNITS.includes(operation)) this.unanswered += 1;
      throw error;
    }
  }

  /**
   * A read of the strategy's state (remaining, status): it changes no fact of the case, and passes here
   * all the same, so that every operation the case drives goes through the record.
   */
  read<T extends number | string>(
    read: { what: 'remaining' | 'status'; target: string },
    run: () => Promise<T>,
    session = 'script',
  ): Promise<T> {
    const call: Call =
      read.what === 'remaining'
        ? { op: 'remaining', sku: read.target }
        : { op: 'status', requestKey: read.target };
    return this.history.around(
      call,
      { session },
      run,
      (value): Answer =>
        typeof value === 'number' ? { remaining: value } : { status: value as KeyStatusAnswer },
    );
  }

  /**
   * Waiting until the database's clock has passed `ms`, a step of the case's phases; `run` waits the
   * longer time the history needs to tell that `ms` passed (HistoryRecorder.distinguishableWait), so a
   * check on what time did is decided by the history, never by how the wait fell against the clocks.
   */
  async databaseClockPasses(ms: number, run: (waitMs: number) => Promise<void>): Promise<void> {
    this.phases.step(`database clock +${ms} ms`);
    await run(this.history.distinguishableWait(ms));
  }

  /** The operation runs in a child process until it stops at `crashAt` and is killed there: never answered. */
  killed<T>(operation: CrashOperation, crashAt: PausePoint, run: () => Promise<T>): Promise<T> {
    const name = operation === 'expire' ? 'expire' : 'reserve';
    this.phases.step(`kill -9 of ${name} at ${crashAt}`);
    this.pausePoints.add(`${name}:${crashAt}`);
    if (operation !== 'expire') this.sending([operation.reserve]);
    else this.unanswered += 1;
    this.ran(name);
    const call: Call = operation === 'expire' ? { op: 'expire' } : { op: 'reserve', ...operation.reserve };
    this.history.add(call, { session: 'crash-child', invokedAt: harnessNow() }, null, {
      kind: 'unknown',
      why: `killed -9 at ${crashAt}`,
    });
    return run();
  }

  /** The database crashes (immediate shutdown) and restarts. */
  databaseCrash(run: () => Promise<void>): Promise<void> {
    return this.fault('database crash', run);
  }

  /** A fault of the database under test (a failover, a partition …), a step of the case's phases. */
  async fault(label: string, run: () => Promise<unknown>): Promise<void> {
    this.phases.step(label);
    await run();
  }

  /** Requests the scenario sends over HTTP itself; they are one batch until `httpAnswered`. */
  httpSent(requests: readonly ReserveRequest[]): void {
    this.sending(requests);
    this.overHttp ??= {
      done: this.phases.send(
        requests.map((r) => r.requestKey),
        'reserve over HTTP',
      ),
      sentAt: harnessNow(),
    };
  }

  /** The answers HTTP clients received, closing the batch `httpSent` opened (or one of their own). */
  httpAnswered(results: readonly RequestResult[]): void {
    const batch = this.overHttp ?? {
      done: this.phases.send(results.map((r) => r.requestKey)),
      sentAt: harnessNow(),
    };
    this.answered(results, { sentAt: batch.sentAt, answeredAt: harnessNow(), session: 'http' });
    this.collect(results, batch.done);
    this.overHttp = undefined;
  }

  /**
   * One step of an interleaving, after the engine ran it: `invoked` when the step is the operation's own
   * (not the RESUME of a paused one). A paused step has no answer yet; the step that completes the
   * operation records it.
   */
  interleavingStep(step: StepRecord, operation: CallStep, invoked: boolean): void {
    if (invoked) {
      if ('reserve' in operation) this.sending([operation.reserve]);
      const name = 'operation' in operation ? operation.operation : 'reserve';
      if (operation.until) this.pausePoints.add(`${name}:${operation.until}`);
    }
    this.stepHistory(step, operation, invoked);
    const { result } = step;
    if (result.status === 'ok' && result.paused) return;
    if ('operation' in operation) {
      // A lifecycle operation answers a count or whether it moved a row (only reads answer a status).
      const value = result.status === 'ok' && typeof result.value !== 'string' ? result.value : undefined;
      this.ran(operation.operation);
      this.lifecycleAnswered(operation.operation, operation.requestKey, value);
      this.sumAnswer(operation.operation, value);
      return;
    }
    this.ran('reserve');
    const answer = answerOf(operation.reserve, result);
    if (answer) this.collect([answer], (from, to) => this.phases.answered(from, to));
  }

  /**
   * The history of an interleaving's operation: invoked when its own step was sent, ended when the step
   * that completes it (its own, or the RESUME of a paused one) came back.
   */
  private stepHistory(step: StepRecord, operation: CallStep, invoked: boolean): void {
    if (invoked) {
      const call =
        'reserve' in operation
          ? ({ op: 'reserve', ...operation.reserve } as const)
          : lifecycleCall(operation.operation, operation.requestKey);
      const node = `node-${operation.on?.node ?? 1}`;
      this.running.set(step.session, { call, invokedAt: step.sentAt, node });
    }
    const { result } = step;
    const running = this.running.get(step.session);
    if (running && result.status === 'ok' && result.paused) {
      running.undecided = UNDECIDED_PAUSE_POINTS.includes(result.paused as PausePoint);
    }
    if (!running || (result.status === 'ok' && (result.paused || result.endedBeforePause))) return;
    this.running.delete(step.session);
    const at = {
      session: step.session,
      node: running.node,
      invokedAt: running.invokedAt,
      ...(!invoked && running.undecided ? { resumedAt: step.sentAt } : {}),
    };
    if (result.status === 'error') {
      const why = result.killed ? 'killed at its pause point' : (result.sqlstate ?? 'error');
      this.history.add(running.call, at, null, { kind: 'unknown', why });
      if (!result.killed && 'operation' in operation) this.failures.push(result);
    } else if (result.rolledBack) {
      this.history.add(running.call, at, null, { kind: 'aborted' });
    } else {
      const value = typeof result.value === 'string' ? undefined : result.value;
      const answer: Answer = (result.answer as ReserveResult | undefined) ?? lifecycleAnswer(value);
      this.history.add(running.call, at, step.completedAt ?? null, { kind: 'ok', answer });
    }
  }

  /**
   * A step of an interleaving that is not an operation of its own: a read (STATUS, REMAINING) goes into
   * the history with its answer; a WAIT and a node RESTART are steps of the case's phases.
   */
  interleavingEvent(step: StepRecord, event: EventStep): void {
    if ('waitMs' in event) {
      this.phases.step(`database clock +${event.waitMs} ms`);
      return;
    }
    if ('restart' in event) {
      this.phases.step(`restart of node-${event.restart.node}`);
      return;
    }
    const call: Call =
      event.read === 'status'
        ? { op: 'status', requestKey: event.requestKey }
        : { op: 'remaining', sku: event.sku };
    this.ran(event.read);
    const at = { session: step.session, invokedAt: step.sentAt };
    const { result } = step;
    if (result.status === 'error') {
      this.history.add(call, at, null, { kind: 'unknown', why: result.sqlstate ?? 'error' });
      this.failures.push(result);
      return;
    }
    const answer: Answer =
      typeof result.value === 'number'
        ? { remaining: result.value }
        : { status: result.value as KeyStatusAnswer };
    this.history.add(call, at, step.completedAt ?? null, { kind: 'ok', answer });
  }

  /** The case holds every client's reserve at this pause point until all have reached it. */
  heldAt(point: PausePoint): void {
    this.pausePoints.add(`reserve:${point}`);
  }

  observe(name: string, value: Observed): void {
    this.observations[name] = value;
  }

  /** What the case drove, for the final read, the audit and the verdict (`nodes`: an interleaving's). */
  driven(steps?: StepRecord[], nodes?: readonly NodeIdentity[]): Driven {
    const served = nodes ?? [...this.incarnations.values()];
    return {
      sent: this.sent,
      answers: this.answers,
      lifecycle: {
        released: this.released,
        expireRan: this.expireRan,
        disabled: this.disabled,
        confirmed: this.confirmed,
        unitsExpired: this.unitsExpired,
        unanswered: this.unanswered,
      },
      exercised: [...this.exercised],
      pausePoints: [...this.pausePoints],
      observations: this.observations,
      ...(steps ? { steps } : {}),
      phases: this.phases,
      failures: this.failures,
      ...(served.length > 0 ? { nodes: served } : {}),
    };
  }

  private sending(requests: readonly ReserveRequest[]): void {
    this.sent.push(...requests);
    for (const r of requests) this.ttls.set(r.requestKey, r.ttlMs);
    this.ran('reserve');
  }

  private answered(
    results: readonly RequestResult[],
    batch: { sentAt: number; answeredAt: number; session: string },
  ): void {
    recordResults(this.history, results, (key) => this.ttls.get(key) ?? 0, batch);
  }

  /** The case called `operation`; that expiry ran is a fact the audit needs. */
  private ran(operation: string): void {
    this.exercised.add(operation);
    if (operation === 'expire') this.expireRan = true;
  }

  private lifecycleAnswered(
    operation: LifecycleOperation,
    target: string | readonly string[] | undefined,
    answer: LifecycleAnswer,
  ): void {
    const on = typeof target === 'string' ? target : '';
    this.phases.step(operation === 'disable' ? `disable ${on}`.trim() : operation, movedBy(answer, target));
    if (answer === undefined && MOVES_UNITS.includes(operation)) this.unanswered += 1;
    if (operation === 'expire' && typeof answer === 'number') this.unitsExpired += answer;
    if (answer !== true || typeof target !== 'string') return;
    if (operation === 'release') this.released.add(target);
    if (operation === 'disable') this.disabled.add(target);
    if (operation === 'confirm') this.confirmed.add(target);
  }

  /** An interleaving has no code to observe with: what its lifecycle steps returned, summed, is what it saw. */
  private sumAnswer(operation: LifecycleOperation, value: LifecycleAnswer): void {
    const name = SUMMED_AS[operation];
    if (!name) return;
    const n = operation === 'expire' ? (typeof value === 'number' ? value : 0) : value === true ? 1 : 0;
    const before = this.observations[name];
    this.observations[name] = (typeof before === 'number' ? before : 0) + n;
  }

  private nodeServes(node: NodeIdentity): void {
    const before = this.incarnations.get(node.name);
    if (before !== undefined && before.incarnation !== node.incarnation)
      this.phases.step(`restart of ${node.name}`);
    this.incarnations.set(node.name, node);
  }

  private collect(results: readonly RequestResult[], done: (from: number, to: number) => void): void {
    const from = this.answers.length;
    this.answers.push(...results);
    done(from, this.answers.length);
  }
}
