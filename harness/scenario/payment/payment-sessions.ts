/**
 * The sessions a scripted payment case drives (a spec's are the interleaving engine's): each `pay` on a
 * connection of its own (search_path the case's schema), held at a pause point on a promise the scenario
 * releases once every held pay has reached it. Every answer is recorded here as it comes in; the order of
 * events is decided by observed state, never by a sleep.
 */
import pg from 'pg';
import type { PausePoint } from '../../../strategies/contract.ts';
import type { PaymentDesign, PaymentRequest } from '../../../strategies/payment/contract.ts';
import { sqlstateOf } from '../../../strategies/support/sqlstate.ts';
import type { CaseConnection } from '../../driver/client-task.ts';
import { oneLine } from '../../errors.ts';
import { checkPaymentAnswer } from '../../registry/payment-module.ts';
import type { PaymentAnswer } from '../../verdict/payment-invariants.ts';
import { payWithLostCommitAnswer } from './lost-commit-answer.ts';
import type { PayInFlight } from './payment-scenario.ts';

export class PaymentSessions {
  private readonly answers: PaymentAnswer[] = [];
  private readonly clients: pg.Client[] = [];

  constructor(
    private readonly connection: CaseConnection,
    private readonly design: PaymentDesign,
  ) {}

  /** Every answer recorded so far, in the order they came in. */
  recorded(): readonly PaymentAnswer[] {
    return this.answers;
  }

  async connect(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.connection.connectionString,
      application_name: 'reservebench-payment',
      options: `-c search_path=${this.connection.schema}`,
    });
    client.on('error', () => undefined);
    this.clients.push(client);
    await client.connect();
    return client;
  }

  /** One pay, held at `holdAt` when it gets there; `session` when it was connected beforehand. */
  startPay(request: PaymentRequest, holdAt?: PausePoint, session?: Promise<pg.Client>): PayInFlight {
    const connected = session ?? this.connect();
    let reachedWith: (how: 'paused' | 'finished') => void = () => undefined;
    const reached = new Promise<'paused' | 'finished'>((resolve) => {
      reachedWith = resolve;
    });
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const finished = (async (): Promise<PaymentAnswer> => {
      const client = await connected;
      const pause = async (point: PausePoint) => {
        if (point !== holdAt) return;
        reachedWith('paused');
        await released;
      };
      try {
        const checked = checkPaymentAnswer(await this.design.pay({ db: client, pause }, request));
        if ('problem' in checked) return { request, outcome: 'ERROR', error: checked.problem };
        return { request, ...checked.answer };
      } catch (error: unknown) {
        const sqlstate = sqlstateOf(error);
        return { request, outcome: 'ERROR', error: oneLine(error), ...(sqlstate ? { sqlstate } : {}) };
      }
    })().then((answer) => {
      this.answers.push(answer);
      reachedWith('finished');
      return answer;
    });
    return {
      reached,
      resume: () => {
        release();
        return finished;
      },
    };
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

  async close(): Promise<void> {
    await Promise.all(this.clients.map((c) => c.end().catch(() => undefined)));
  }
}
