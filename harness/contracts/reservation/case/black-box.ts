/**
 * What a case needs from a black box (`run --target`: a service the harness reaches only through its API)
 * beyond the Strategy-shaped adapter it drives: which scenarios it cannot run and why, the final read over
 * HTTP, the script context it can honour, and the HTTP facts of the case. run-case.ts asks these and
 * nothing else; it knows no target by name.
 */

import type { HttpFacts } from '../blackbox/exchange-log.ts';
import type { FinalRead } from '../verdict/final-read.ts';
import type { Scenario, ScriptContext } from './scenario.ts';

export interface BlackBox {
  /** Why the scenario cannot run against this black box (one line), or undefined when it can. */
  notApplicable(scenario: Scenario): string | undefined;
  /** `status` of every key and `remaining` of every sku, read back through the API after the case. */
  finalRead(keys: Iterable<string>, skus: readonly string[]): Promise<FinalRead>;
  /**
   * The context a script scenario runs against: what needs the database or an in-process strategy fails
   * with one line naming what the scenario reached for; a node restart runs the restart hook.
   */
  scriptContext(ctx: ScriptContext, scenario: Scenario): ScriptContext;
  /** The HTTP facts since the last take (the case), and a fresh start. */
  takeFacts(): HttpFacts;
}

/** What a case without an audit says instead of one. */
export const NO_AUDIT = 'no audit: black box (duplicateKey and auditMismatch not computed)';
