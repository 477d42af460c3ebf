/**
 * The sessions a payment case drives: each `pay` on a connection of its own (search_path the case's
 * schema), held at a pause point on a promise the scenario releases, seen blocked through
 * pg_blocking_pids on the control connection, or terminated where it is held. Every answer is recorded
 * here as it comes in; the order of events is decided by observed state, never by a sleep.
 */
import { setTimeout as nextLook } from 'node:timers/promises';
import type pg from 'pg';
import { type PausePoint, UNDECIDED_PAUSE_POINTS } from '../../../../strategies/contract.ts';
import type { PaymentDesign, PaymentRequest } from '../../../../strategies/payment/contract.ts';
import { sqlstateOf } from '../../../../strategies/support/sqlstate.ts';
import { connectMember } from '../../../database/member-connection.ts';
import { type CaseConnection, sessionOptions } from '../../../driver/case-connection.ts';
import { Errors, oneLine } from '../../../errors.ts';
import { harnessNow } from '../../../history/recorder.ts';
import { checkPaymentAnswer } from '../designs/payment-module.ts';
import type { PaymentAnswer } from '../verdict/payment-invariants.ts';
import { payWithLostCommitAnswer } from './lost-commit-answer.ts';
import type { PayInFlight } from './payment-scenario.ts';

/** Between two looks at a session's backend: the isolation tester's pace, not an ordering. */
const LOOK_EVERY_MS = 2;

interface Connected {
  client: pg.Client;
  pid: number;
}

export class PaymentSessions {
  private readonly answers: PaymentAnswer[] = [];
  private readonly clients: pg.Client[] = [];
  /** Database crashes so far: a pay that fails after one began while it was in flight lost its answer. */
  private crashes = 0;

  constructor(
    private readonly connection: CaseConnection,
    /** The control connection of the moment: a database crash and restart replaces it. */
    private readonly admin: () => pg.ClientBase,
    private readonly design: PaymentDesign,
    private readonly timeoutMs: number,
  ) {}

  /** Every answer recorded so far, in the order they came in. */
  recorded(): readonly PaymentAnswer[] {
    return this.answers;
  }

  /** A session on the case's schema; on a cluster, on the member that takes writes (looked for until one does). */
  async connect(): Promise<Connected> {
    const client = await connectMember(
      {
        connectionString: this.connection.connectionString,
        application_name: 'reservebench-payment',
        options: sessionOptions(this.connection),
      },
      { waitMs: this.timeoutMs },
    );
    this.clients.push(client);
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    return { client, pid: rows[0]?.pid ?? 0 };
  }

  /** One pay, held at `holdAt` when it gets there; `session` when it was connected beforehand. */
  startPay(request: PaymentRequest, holdAt?: PausePoint, session?: Promise<Connected>): PayInFlight {
    const connected = session ?? this.connect();
    let reachedWith: (how: 'paused' | 'finished') => void = () => undefined;
    const reached = new Promise<'paused' | 'finished'>((resolve) => {
      reachedWith = resolve;
    });
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const state: { pausedAt?: PausePoint; killed: boolean; ended: boolean; retried: boolean } = {
      killed: false,
      ended: false,
      retried: false,
    };
    const times = { invokedAt: 0, crashesBefore: this.crashes };
    const finished = (async (): Promise<PaymentAnswer> => {
      const { client } = await connected;
      const pause = async (point: PausePoint) => {
        if (point !== holdAt) return;
        state.pausedAt = point;
        reachedWith('paused');
        await released;
      };
      const retried = () => {
        state.retried = true;
      };
      try {
        times.invokedAt = harnessNow();
        const checked = checkPaymentAnswer(await this.design.pay({ db: client, pause, retried }, request));
        if ('problem' in checked) return { request, outcome: 'ERROR', error: checked.problem };
        return { request, ...checked.answer };
      } catch (error: unknown) {
        const sqlstate = sqlstateOf(error);
        const lost = state.killed
          ? lostOutcome(state.pausedAt)
          : this.crashes > times.crashesBefore
            ? 'INDETERMINATE'
            : undefined;
        if (lost) return { request, outcome: lost, ...(sqlstate ? { sqlstate } : {}) };
        return { request, outcome: 'ERROR', error: oneLine(error), ...(sqlstate ? { sqlstate } : {}) };
      }
    })().then((untimed) => {
      const answer = { ...untimed, invokedAt: times.invokedAt, completedAt: harnessNow() };
      state.ended = true;
      this.answers.push(answer);
      reachedWith('finished');
      return answer;
    });
    return {
      reached,
      blockedOrDone: () => this.blockedOrDone(connected, state),
      resume: () => {
        release();
        return finished;
      },
      kill: async () => {
        state.killed = true;
        await this.admin().query('SELECT pg_terminate_backend($1)', [(await connected).pid]);
        release();
        return finished;
      },
    };
  }

  /** Looks at the session's backend until another one holds it up, it retries, or its pay ended. */
  private async blockedOrDone(
    connected: Promise<Connected>,
    state: { ended: boolean; retried: boolean },
  ): Promise<'blocked' | 'retrying' | 'done'> {
    const { pid } = await connected;
    const until = performance.now() + this.timeoutMs;
    for (;;) {
      if (state.ended) return 'done';
      if (state.retried) return 'retrying';
      const { rows } = await this.admin().query<{ n: number }>(
        'SELECT cardinality(pg_blocking_pids($1))::int AS n',
        [pid],
      );
      if ((rows[0]?.n ?? 0) > 0) return 'blocked';
      if (performance.now() > until)
        throw Errors.barrierTimeout('a payment seen blocked or done', this.timeoutMs / 1000);
      await nextLook(LOOK_EVERY_MS);
    }
  }

  /** Every request on a session connected beforehand, held at `holdAt` until all got there or ended. */
  async payTogether(requests: readonly PaymentRequest[], holdAt?: PausePoint): Promise<PaymentAnswer[]> {
    const sessions = requests.map(() => this.connect());
    await Promise.all(sessions);
    const inFlight = requests.map((request, i) => this.startPay(request, holdAt, sessions[i]));
    await Promise.all(inFlight.map((p) => p.reached));
    return Promise.all(inFlight.map((p) => p.resume()));
  }

  /** One pay whose commit answer a proxy cuts off (lost-commit-answer.ts), recorded like the others. */
  async payWithLostCommitAnswer(request: PaymentRequest): Promise<PaymentAnswer> {
    const answer = await payWithLostCommitAnswer(this.connection, this.design, request);
    this.answers.push(answer);
    return answer;
  }

  /** Called before the database crashes: every pay in flight from now on may lose its answer to it. */
  databaseCrashing(): void {
    this.crashes += 1;
  }

  /** An answer the case got elsewhere (a pay killed in a crash child), recorded like the others. */
  record(answer: PaymentAnswer): void {
    this.answers.push(answer);
  }

  async close(): Promise<void> {
    await Promise.all(this.clients.map((c) => c.end().catch(() => undefined)));
  }
}

/** A pay killed where it was held: nothing of it may persist before its commit; after one, it may. */
export function lostOutcome(pausedAt: PausePoint | undefined): string {
  return pausedAt && UNDECIDED_PAUSE_POINTS.includes(pausedAt) ? 'ROLLED_BACK' : 'INDETERMINATE';
}
