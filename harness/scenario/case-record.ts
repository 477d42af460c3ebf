/**
 * What a case drove, kept in one place while it happens: the requests sent and the answers they got, the
 * contract operations exercised and the pause points they stopped at, the lifecycle facts the audit needs
 * (keys released, whether expiry ran, skus disabled), the scenario's observations, and its phases. Every
 * operation a driver runs passes through the one method of its kind, which notes the operation when it is
 * invoked and its answer when that is in; the drivers read nothing back but the `Driven` at the end.
 */
import type { NodeIdentity, PausePoint, ReserveRequest } from '../../strategies/contract.ts';
import type { CrashOperation } from '../crash/crash-order.ts';
import type { ClientScript, RequestResult } from '../driver/client-task.ts';
import type { Step, StepRecord, StepResult } from '../interleaving/permutation.ts';
import type { Driven } from './driven.ts';
import { PhaseRecorder } from './phases.ts';
import type { LifecycleOperation, Observations, Observed } from './scenario.ts';

/** A step of an interleaving that calls the strategy: a reserve or a lifecycle operation. */
export type OperationStep = Extract<Step, { reserve: unknown } | { operation: unknown }>;

/** What a lifecycle operation's answer is: rows moved or not, units expiry gave back; backdate has none. */
type LifecycleAnswer = boolean | number | undefined;

/** The observation an interleaving's lifecycle steps sum their answers into. */
const SUMMED_AS: Partial<Record<LifecycleOperation, string>> = {
  expire: 'unitsReturned',
  confirm: 'confirmed',
  disable: 'disabled',
  release: 'released',
};

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
      outcome: 'ERROR',
      error: result.error,
      ...(result.sqlstate ? { sqlstate: result.sqlstate } : {}),
    };
  }
  if (result.rolledBack) return { ...base, outcome: 'ROLLED_BACK' };
  return result.answer ? { ...base, ...result.answer } : undefined;
}

export class CaseRecord {
  private readonly sent: ReserveRequest[] = [];
  private readonly answers: RequestResult[] = [];
  private readonly exercised = new Set<string>();
  private readonly pausePoints = new Set<string>();
  private readonly observations: Observations = {};
  private readonly released = new Set<string>();
  private readonly disabled = new Set<string>();
  private expireRan = false;
  private readonly phases = new PhaseRecorder();
  /** The incarnation each node last served in: a new one is a restart, a step of its own. */
  private readonly incarnations = new Map<string, string>();
  /** The batch the requests a scenario sends over HTTP belong to, until their answers are in. */
  private overHttp: ((from: number, to: number) => void) | undefined;

  /**
   * Clients started together on the worker-thread driver (or one reserve on a session of the scenario's
   * own): one batch from when `run` sends them until their answers are in.
   */
  async reserve<R extends readonly RequestResult[]>(
    clients: readonly ClientScript[],
    run: () => Promise<R>,
  ): Promise<R> {
    const requests = clients.flatMap((c) => c.requests);
    this.sent.push(...requests);
    this.ran('reserve');
    for (const { rollbackAt, node } of clients) {
      if (rollbackAt) this.pausePoints.add(`reserve:${rollbackAt}`);
      if (node) this.nodeServes(node);
    }
    const done = this.phases.send(requests.map((r) => r.requestKey));
    const results = await run();
    this.collect(results, done);
    return results;
  }

  /** A lifecycle operation of the strategy (`target`: the key or sku it acts on, the keys backdated). */
  async lifecycle<T extends LifecycleAnswer>(
    operation: LifecycleOperation,
    target: string | readonly string[] | undefined,
    run: () => Promise<T>,
  ): Promise<T> {
    this.ran(operation);
    const answer = await run();
    this.lifecycleAnswered(operation, target, answer);
    return answer;
  }

  /**
   * A read of the strategy's state (remaining, status): it changes no fact of the case, and passes here
   * all the same, so that every operation the case drives goes through the record.
   */
  read<T>(_read: { what: 'remaining' | 'status'; target: string }, run: () => Promise<T>): Promise<T> {
    return run();
  }

  /** Waiting until the database's clock has passed `ms`: a step of the case's phases. */
  async databaseClockPasses(ms: number, run: () => Promise<void>): Promise<void> {
    this.phases.step(`database clock +${ms} ms`);
    await run();
  }

  /** The operation runs in a child process until it stops at `crashAt` and is killed there: never answered. */
  killed<T>(operation: CrashOperation, crashAt: PausePoint, run: () => Promise<T>): Promise<T> {
    const name = operation === 'expire' ? 'expire' : 'reserve';
    this.phases.step(`kill -9 of ${name} at ${crashAt}`);
    this.pausePoints.add(`${name}:${crashAt}`);
    if (operation !== 'expire') this.sent.push(operation.reserve);
    this.ran(name);
    return run();
  }

  /** The database crashes (immediate shutdown) and restarts. */
  async databaseCrash(run: () => Promise<void>): Promise<void> {
    this.phases.step('database crash');
    await run();
  }

  /** Requests the scenario sends over HTTP itself; they are one batch until `httpAnswered`. */
  httpSent(requests: readonly ReserveRequest[]): void {
    this.sent.push(...requests);
    this.ran('reserve');
    this.overHttp ??= this.phases.send(
      requests.map((r) => r.requestKey),
      'reserve over HTTP',
    );
  }

  /** The answers HTTP clients received, closing the batch `httpSent` opened (or one of their own). */
  httpAnswered(results: readonly RequestResult[]): void {
    this.collect(results, this.overHttp ?? this.phases.send(results.map((r) => r.requestKey)));
    this.overHttp = undefined;
  }

  /**
   * One step of an interleaving, after the engine ran it: `invoked` when the step is the operation's own
   * (not the RESUME of a paused one). A paused step has no answer yet; the step that completes the
   * operation records it.
   */
  interleavingStep(step: StepRecord, operation: OperationStep, invoked: boolean): void {
    if (invoked) {
      if ('reserve' in operation) this.sent.push(operation.reserve);
      const name = 'operation' in operation ? operation.operation : 'reserve';
      if (operation.until) this.pausePoints.add(`${name}:${operation.until}`);
    }
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

  /** The case holds every client's reserve at this pause point until all have reached it. */
  heldAt(point: PausePoint): void {
    this.pausePoints.add(`reserve:${point}`);
  }

  observe(name: string, value: Observed): void {
    this.observations[name] = value;
  }

  /** What the case drove, for the final read, the audit and the verdict. */
  driven(steps?: StepRecord[]): Driven {
    return {
      sent: this.sent,
      answers: this.answers,
      lifecycle: { released: this.released, expireRan: this.expireRan, disabled: this.disabled },
      exercised: [...this.exercised],
      pausePoints: [...this.pausePoints],
      observations: this.observations,
      ...(steps ? { steps } : {}),
      phases: this.phases,
    };
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
    if (answer !== true || typeof target !== 'string') return;
    if (operation === 'release') this.released.add(target);
    if (operation === 'disable') this.disabled.add(target);
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
    if (before !== undefined && before !== node.incarnation) this.phases.step(`restart of ${node.name}`);
    this.incarnations.set(node.name, node.incarnation);
  }

  private collect(results: readonly RequestResult[], done: (from: number, to: number) => void): void {
    const from = this.answers.length;
    this.answers.push(...results);
    done(from, this.answers.length);
  }
}
