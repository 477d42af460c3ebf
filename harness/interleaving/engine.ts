/**
 * The interleaving engine, modelled on PostgreSQL's isolation tester: each session is its own connection,
 * steps are sent in the permutation's order without waiting for each other, and a step counts as blocked
 * when `pg_blocking_pids(its backend)` names another session's backend, observed on a control connection.
 * After each step, the steps seen waiting earlier are looked at again, so a completion is reported right
 * after the step that released it, as the tester prints it. No timer decides an ordering: the poll
 * interval only says how often the state is looked at again, and every wait ends as soon as the step
 * itself completes.
 *
 * Waiting, progress and stuck — one rule, on observed state (pg_stat_activity of the step's backend),
 * where the tester knows only locks. A step counts as WAITING — reported `<waiting ...>` like a blocked
 * one, and the engine goes on to the permutation's next step — when
 *   - it is blocked: pg_blocking_pids names another session's backend (the record's `blocked`), or
 *   - it is retrying, for a step that calls the strategy: its operation called `ctx.retried` since the
 *     step was sent, or its backend was seen in 3 or more distinct transactions (xact_start) since then
 *     (the record's `retrying`; a design that backs off and tries again instead of queueing on a lock).
 * A step is STUCK only when, for the whole timeout, it neither completes, nor waits, nor starts a new
 * statement: each new query_start is progress and gives it the whole timeout again — up to
 * MOVING_STEP_TIMEOUTS timeouts in all, after which one still only moving is stuck. A SQL step is the
 * tester's own: it waits only on locks, however many transactions it runs, so PostgreSQL's specs print
 * as the tester prints them. A step already reported waiting may take the timeout, once the engine has
 * nothing else to send, to complete.
 *
 * One run of a permutation is a PermutationRun, whose methods are the tester's own (isolationtester.c):
 * run_permutation's setup, steps and teardown, try_complete_step, try_complete_steps and the query that
 * asks whether a session is blocked.
 */
import { setTimeout as nextLook } from 'node:timers/promises';
import pg from 'pg';
import type { IsolationLevel } from '../../strategies/contract.ts';
import { CASE_POLL_MS, pollUntil } from '../database/poll-until.ts';
import { Errors, EXIT, HarnessError } from '../errors.ts';
import { requestKeyOf, startCallStep } from './call-steps.ts';
import { databaseClockPasses } from './clock-step.ts';
import { mixedNodeCounts, Nodes } from './nodes.ts';
import {
  type EngineEvent,
  isContractStep,
  type Permutation,
  type PermutationFrame,
  type ResultTable,
  type ServerMessage,
  type Step,
  type StepRecord,
} from './permutation.ts';
import { SentStep } from './sent-step.ts';
import { Session } from './session.ts';
import type { CalledDesign, StepEnvironment } from './spec-verbs.ts';
import { type FrameResult, runFrameSql, runSql } from './sql-step.ts';
import type { BackendLook } from './step-activity.ts';
import { type Outcome, ok } from './step-outcome.ts';

export interface EngineOptions {
  connectionString: string;
  /** Set as the search_path of the sessions and the control connection. */
  schema?: string;
  /** Needed by the steps that call the design (RESERVE, PAY, …): the design, and its contract's verbs. */
  contract?: CalledDesign;
  /**
   * How long one step may neither complete, nor wait, nor start a statement, and how long a waiting step
   * may take at the end.
   */
  timeoutMs: number;
  pollMs?: number;
  /** Setup and teardown SQL around the permutation (a spec's). */
  frame?: PermutationFrame;
  /** Told what happens, in the order the isolation tester prints it. */
  onEvent?: (event: EngineEvent) => void;
  /** Throw InvalidPermutation instead of waiting for a step that nothing can let go on. */
  rejectInvalid?: boolean;
  /** The sessions' default_transaction_isolation (not the control connection's). */
  isolation?: IsolationLevel;
  /**
   * How far a step that lets the database clock pass `ms` (WAIT, a BACKDATE waited out) waits: by default
   * `ms`; further where a history must be able to tell that `ms` passed (HistoryRecorder.distinguishableWait).
   */
  clockWait?: (ms: number) => number;
  /** The nodes the steps run on, when the caller reads their incarnations after the run (a fresh set otherwise). */
  nodes?: Nodes;
}

/**
 * The permutation asks a session for its next step while that session's previous step waits on a lock
 * held by sessions that are themselves idle, waiting for steps that come later: nothing can let it go on
 * (the isolation tester's "invalid permutation detected"). Seen on the database, not timed out.
 */
export class InvalidPermutation extends HarnessError {
  constructor(
    readonly step: string,
    readonly waitingStep: string,
  ) {
    super(
      `invalid permutation: ${step} needs its session, whose step ${waitingStep} waits on idle sessions`,
      EXIT.expectationFailed,
    );
  }
}

export async function runPermutation(
  permutation: Permutation,
  options: EngineOptions,
): Promise<StepRecord[]> {
  return await new PermutationRun(permutation, options).run();
}

/**
 * How many timeouts a step that keeps starting statements may take, in all, to complete or be seen
 * waiting: its progress extends its deadline, never for ever.
 */
export const MOVING_STEP_TIMEOUTS = 10;

/** The tester's flags: `nonblock` returns once the step is seen waiting; `retry` for a step already reported waiting. */
interface Look {
  nonblock: boolean;
  retry: boolean;
}

class PermutationRun {
  private readonly pollMs: number;
  private readonly emit: (event: EngineEvent) => void;
  private readonly frame: PermutationFrame;
  private readonly stepsByName: Map<string, Step>;
  private readonly control: pg.Client;
  private readonly sessions = new Map<string, Session>();
  /** Each session's active step, the tester's: sent on it and not yet reported completed. */
  private readonly activeSteps = new Map<Session, SentStep>();
  /** Steps reported waiting and not yet completed, in the order they were sent. */
  private readonly waiting: SentStep[] = [];
  private readonly records: StepRecord[] = [];
  /** A notice arrived since try_complete_steps last began a pass. */
  private noticeArrived = false;
  private readonly environment: StepEnvironment;
  private readonly clockWait: (ms: number) => number;

  constructor(
    private readonly permutation: Permutation,
    private readonly options: EngineOptions,
  ) {
    this.pollMs = options.pollMs ?? CASE_POLL_MS;
    this.clockWait = options.clockWait ?? ((ms) => ms);
    this.emit = options.onEvent ?? (() => undefined);
    this.frame = options.frame ?? {};
    this.stepsByName = new Map(permutation.steps.map((s) => [s.name, s]));
    const conflict = mixedNodeCounts(permutation.steps);
    if (conflict) throw Errors.badInput(conflict);
    for (const step of permutation.steps) {
      for (const b of step.blockers ?? []) {
        if (b.kind !== 'once' && !this.stepsByName.has(b.step))
          throw Errors.badInput(
            `step ${step.name} waits for step ${b.step}, which is not in the permutation`,
          );
      }
    }
    this.control = new pg.Client({
      connectionString: options.connectionString,
      application_name: 'reservebench-control',
      ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
    });
    this.control.on('error', () => undefined);
    this.environment = {
      ...(options.contract ? { contract: options.contract } : {}),
      nodes: options.nodes ?? new Nodes(options.schema ?? 'engine'),
      control: this.control,
      steps: this.stepsByName,
      clockWait: this.clockWait,
      pollMs: this.pollMs,
      timeoutMs: options.timeoutMs,
    };
  }

  async run(): Promise<StepRecord[]> {
    await this.control.connect();
    try {
      await this.setup();
      await this.performSteps();
      await this.teardown();
      return this.records;
    } finally {
      await Promise.all([...this.sessions.values()].map((s) => s.client.end().catch(() => undefined)));
      await this.control.end().catch(() => undefined);
    }
  }

  /** The spec's setup on the control connection, then the sessions, each with its own setup. */
  private async setup(): Promise<void> {
    for (const sql of this.frame.setup ?? []) {
      const out = await runFrameSql(this.control, sql);
      if ('error' in out) throw Errors.badInput(`setup failed: ${out.error}`);
      this.showRows(out.tables);
    }
    for (const name of this.permutation.sessions)
      this.sessions.set(name, await Session.open(name, this.options, this.onNotice));
    for (const session of this.sessions.values()) {
      const sql = this.frame.sessionSetup?.[session.name];
      if (sql === undefined) continue;
      const out = await runFrameSql(session.client, sql);
      if ('error' in out) throw Errors.badInput(`setup of session ${session.name} failed: ${out.error}`);
      this.showRows(out.tables);
    }
  }

  /** Each session's teardown, then the spec's; a failure is reported, not thrown, as the tester does. */
  private async teardown(): Promise<void> {
    for (const session of this.sessions.values()) {
      const sql = this.frame.sessionTeardown?.[session.name];
      if (sql === undefined) continue;
      this.showTeardown(`teardown of session ${session.name}`, await runFrameSql(session.client, sql));
    }
    if (this.frame.teardown !== undefined)
      this.showTeardown('teardown', await runFrameSql(this.control, this.frame.teardown));
  }

  private showTeardown(where: string, out: FrameResult): void {
    if ('error' in out) this.emit({ kind: 'teardown-failed', where, error: out.error });
    else this.showRows(out.tables);
  }

  private showRows(tables: ResultTable[]): void {
    if (tables.length > 0) this.emit({ kind: 'rows', tables });
  }

  private readonly onNotice = (session: Session, notice: ServerMessage): void => {
    session.notices += 1;
    this.noticeArrived = true;
    this.emit({ kind: 'notice', session: session.name, notice });
  };

  /** run_permutation's steps: each sent once its session's earlier step is reported completed. */
  private async performSteps(): Promise<void> {
    for (const step of this.permutation.steps) {
      const session = this.sessions.get(step.session);
      if (!session) throw Errors.badInput(`step ${step.name} names an unknown session ${step.session}`);
      await this.waitForActiveStep(session, step);
      const sent = this.send(session, step);
      this.activeSteps.set(session, sent);
      const mustWait = await this.tryCompleteStep(sent, { nonblock: true, retry: false });
      await this.tryCompleteSteps({ nonblock: true, retry: true });
      if (mustWait) this.waiting.push(sent);
    }
    await this.tryCompleteSteps({ nonblock: false, retry: true });
    if (this.waiting.length > 0) {
      const names = this.waiting.map((s) => s.step.name).join(', ');
      throw new HarnessError(
        `step(s) ${names} wait for each other through their annotations: the permutation cannot finish`,
        EXIT.expectationFailed,
      );
    }
  }

  /** Like isolationtester: a session's next step waits until its blocked one has been reported done. */
  private async waitForActiveStep(session: Session, next: Step): Promise<void> {
    const active = this.activeSteps.get(session);
    if (!active) return;
    if (this.options.rejectInvalid && (await this.waitsOnIdleSessions(active))) {
      throw new InvalidPermutation(next.name, active.step.name);
    }
    // Only performSteps makes a step active, after this returns: until then it stays `active` or none.
    const reported = await pollUntil(
      async () => {
        if (!(await this.tryCompleteStep(active, { nonblock: false, retry: true }))) {
          const at = this.waiting.indexOf(active);
          if (at >= 0) this.waiting.splice(at, 1);
        }
        await this.tryCompleteSteps({ nonblock: true, retry: true });
        return !this.activeSteps.has(session);
      },
      { timeoutMs: this.options.timeoutMs, everyMs: this.pollMs },
    );
    if (!reported) throw Errors.barrierTimeout(`step ${active.step.name}`, this.options.timeoutMs / 1000);
  }

  private send(session: Session, step: Step): SentStep {
    const requestKey = requestKeyOf(session, step);
    const start = () => this.start(session, step);
    const sent = new SentStep(step, session, requestKey, start, (s) => this.untilIdle(s));
    this.records.push(sent.record);
    for (const b of step.blockers ?? []) {
      if (b.kind !== 'notices') continue;
      sent.noticeTargets.set(b, b.count + (this.sessionOfStep(b.step)?.notices ?? 0));
    }
    return sent;
  }

  private start(session: Session, step: Step): Promise<Outcome> {
    const { environment } = this;
    const waitOut = isContractStep(step)
      ? environment.contract?.verbs.waitsInstead?.(step, environment)
      : undefined;
    if (waitOut !== undefined) return databaseClockPasses(session, this.clockWait(waitOut), environment);
    if (isContractStep(step) || 'resume' in step) return startCallStep(session, step, environment);
    if ('waitMs' in step) return databaseClockPasses(session, this.clockWait(step.waitMs), environment);
    if ('restart' in step) {
      environment.nodes.restart(step.restart);
      return Promise.resolve(ok({ status: 'ok' }));
    }
    if ('failover' in step)
      throw Errors.badInput(`step ${step.name}: FAILOVER runs only in a program explored on a cluster`);
    return runSql(session.client, step.sql);
  }

  private sessionOfStep(name: string): Session | undefined {
    return this.sessions.get(this.stepsByName.get(name)?.session ?? '');
  }

  /** isolationtester's try_complete_step: true while the step is still (reported) waiting. */
  private async tryCompleteStep(sent: SentStep, look: Look): Promise<boolean> {
    const waitingNow = () => {
      if (!look.retry) this.emit({ kind: 'waiting', step: sent.step });
      return true;
    };
    if (!look.retry && sent.step.blockers?.some((b) => b.kind === 'once')) return waitingNow();
    if (!look.nonblock) await this.finish(sent);
    else {
      const settled = await this.settle(sent);
      if (settled === 'blocked') sent.record.blocked = true;
      if (settled === 'retrying') sent.record.retrying = true;
      if (settled !== 'completed') return waitingNow();
    }
    const { outcome } = sent;
    if (sent.failure) throw sent.failure;
    if (!outcome || this.heldBack(sent)) return waitingNow();
    this.emit({
      kind: 'completed',
      step: sent.step,
      afterWaiting: look.retry,
      tables: outcome.tables,
      ...(outcome.error ? { error: outcome.error } : {}),
    });
    this.activeSteps.delete(sent.session);
    return false;
  }

  /** isolationtester's try_complete_steps: the waiting steps looked at again, those completed dropped. */
  private async tryCompleteSteps(look: Look): Promise<void> {
    const waiting = this.waiting;
    for (;;) {
      const before = waiting.length;
      let annotated = false;
      this.noticeArrived = false;
      for (let w = 0; w < waiting.length; ) {
        const sent = waiting[w];
        if (!sent) break;
        if (await this.tryCompleteStep(sent, look)) {
          annotated ||= (sent.step.blockers?.length ?? 0) > 0;
          w += 1;
        } else {
          waiting.splice(w, 1);
        }
      }
      // A completion or notice may have released an annotated step looked at before it.
      if (!(annotated && (waiting.length < before || this.noticeArrived))) return;
    }
  }

  /** An annotation still holds back the completion of a step that has completed on the server. */
  private heldBack(sent: SentStep): boolean {
    return (sent.step.blockers ?? []).some((b) => {
      if (b.kind === 'once') return false;
      const other = this.sessionOfStep(b.step);
      if (b.kind === 'step') return other !== undefined && this.activeSteps.get(other)?.step.name === b.step;
      return (other?.notices ?? 0) < (sent.noticeTargets.get(b) ?? 0);
    });
  }

  /**
   * Waits until the step completes, or is seen waiting: blocked by another session's backend, or
   * retrying. Each statement its backend starts is progress and gives it the whole timeout again, within
   * MOVING_STEP_TIMEOUTS timeouts; a step that for the whole timeout does none of these, or is still only
   * moving at the end of those, is stuck.
   */
  private async settle(sent: SentStep): Promise<'completed' | 'blocked' | 'retrying'> {
    const { timeoutMs } = this.options;
    let quietUntil = performance.now() + timeoutMs;
    const seen = await pollUntil(
      async () => {
        if (await this.answered(sent)) return 'completed';
        const look = await this.lookAt(sent.session.pid);
        if (await this.answered(sent)) return 'completed';
        if (this.sessionsAmong(look.blockingPids).length > 0) return 'blocked';
        if (sent.activity.note(look)) quietUntil = performance.now() + timeoutMs;
        if (sent.retrying) return 'retrying';
        return performance.now() > quietUntil && 'stuck';
      },
      { timeoutMs: MOVING_STEP_TIMEOUTS * timeoutMs, everyMs: this.pollMs, wake: sent.done },
    );
    if (seen === 'stuck') throw Errors.barrierTimeout(`step ${sent.record.step}`, timeoutMs / 1000);
    if (seen === undefined)
      throw Errors.barrierTimeout(
        `step ${sent.record.step}, starting statements all along,`,
        (MOVING_STEP_TIMEOUTS * timeoutMs) / 1000,
      );
    return seen;
  }

  /**
   * Whether the step's answer has arrived; once it has, waits out its backend going idle (SentStep.done),
   * which untilIdle bounds with a deadline of its own.
   */
  private async answered(sent: SentStep): Promise<boolean> {
    if (sent.record.completedAt === undefined) return false;
    await sent.done;
    return true;
  }

  /** Waits for a step to complete, however long it stays blocked, up to the timeout. */
  private async finish(sent: SentStep): Promise<void> {
    const timer = new AbortController();
    const outcome = await Promise.race([
      sent.done.then(() => 'done' as const),
      nextLook(this.options.timeoutMs, 'stuck' as const, { signal: timer.signal }),
    ]);
    timer.abort();
    if (outcome === 'stuck' && !(await this.answered(sent))) {
      throw Errors.barrierTimeout(`blocked step(s) ${sent.record.step}`, this.options.timeoutMs / 1000);
    }
  }

  /**
   * The tester's "is this session blocked" query, with what the backend is doing: its transaction and
   * statement. A backend that is gone (terminated) is blocked by nothing and in no transaction.
   */
  private async lookAt(pid: number): Promise<BackendLook> {
    const { rows } = await this.control.query<{ pids: number[]; xact: string | null; query: string | null }>(
      `SELECT pg_blocking_pids(pid) AS pids, xact_start::text AS xact, query_start::text AS query
         FROM pg_stat_activity WHERE pid = $1`,
      [pid],
    );
    const row = rows[0];
    return { blockingPids: row?.pids ?? [], xactStart: row?.xact ?? null, queryStart: row?.query ?? null };
  }

  private sessionsAmong(pids: readonly number[]): Session[] {
    return [...this.sessions.values()].filter((s) => pids.includes(s.pid));
  }

  /** The sessions whose backends hold up `pid`. */
  private async blockingSessions(pid: number): Promise<Session[]> {
    return this.sessionsAmong((await this.lookAt(pid)).blockingPids);
  }

  /** Blocked only by sessions with no step running: they will not move before a later step is sent. */
  private async waitsOnIdleSessions(sent: SentStep): Promise<boolean> {
    if (sent.outcome) return false;
    const by = await this.blockingSessions(sent.session.pid);
    return by.length > 0 && by.every((s) => !this.activeSteps.has(s)) && !sent.outcome;
  }

  // A backend reports an error before it rolls back and lets go of its locks; until it is idle, a step
  // it blocked would still look blocked, and where its completion is printed would depend on timing. One
  // still running a statement at the deadline fails the permutation: what follows it cannot be ordered.
  private async untilIdle(sent: SentStep): Promise<void> {
    const { pid } = sent.session;
    const idle = await pollUntil(
      async () => {
        const { rows } = await this.control.query<{ active: boolean }>(
          "SELECT state = 'active' AS active FROM pg_stat_activity WHERE pid = $1",
          [pid],
        );
        return !rows[0]?.active;
      },
      { timeoutMs: this.options.timeoutMs, everyMs: this.pollMs },
    );
    if (!idle) throw Errors.activeAfterError(sent.record.step, this.options.timeoutMs / 1000);
  }
}
