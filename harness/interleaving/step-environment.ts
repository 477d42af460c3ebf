/** What a permutation run gives the strategy steps besides their session, RESUME KILL (kill-step.ts) among them. */
import type pg from 'pg';
import type { Strategy } from '../../strategies/contract.ts';
import type { PaymentDesign } from '../../strategies/payment/contract.ts';
import type { Nodes } from './nodes.ts';

export interface StepEnvironment {
  /** Needed by every strategy step but RESUME. */
  strategy?: Strategy;
  /** Needed by PAY: the payment contract's design, where a spec drives that contract. */
  payment?: PaymentDesign;
  nodes: Nodes;
  /** The run's control connection: what is done to a session from outside it (RESUME KILL). */
  control: pg.Client;
  pollMs: number;
  timeoutMs: number;
}
