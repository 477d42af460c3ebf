/**
 * A script's reservations: clients on the worker-thread driver, started at one barrier, or one reserve on
 * a session of the scenario's own. Both are recorded as the case's requests and answers.
 */

import type { ReserveRequest, SessionContext, Strategy } from '../../../../strategies/contract.ts';
import { sqlstateOf } from '../../../../strategies/support/sqlstate.ts';
import { oneLine } from '../../../errors.ts';
import { checkAnswer } from '../../../registry/strategy-module.ts';
import { STRATEGY_IMPORTER } from '../designs/registry.ts';
import type { RequestResult } from '../driver/client-task.ts';
import type { ScriptContext } from './scenario.ts';
import type { ScriptScope } from './script-scope.ts';

/** One reserve on `session`, its answer (or its failure) as a client's result. */
export async function reserveOnSession(
  strategy: Strategy,
  session: SessionContext,
  request: ReserveRequest,
): Promise<RequestResult> {
  const { requestKey, user, sku } = request;
  const began = performance.now();
  try {
    const checked = checkAnswer(await strategy.reserve(session, request));
    if ('problem' in checked) throw new Error(checked.problem);
    return { requestKey, user, sku, ...checked.answer, latencyMs: performance.now() - began };
  } catch (error: unknown) {
    const sqlstate = sqlstateOf(error);
    return {
      requestKey,
      user,
      sku,
      outcome: 'ERROR',
      latencyMs: performance.now() - began,
      error: oneLine(error),
      ...(sqlstate ? { sqlstate } : {}),
    };
  }
}

export function scriptReservations(scope: ScriptScope): Pick<ScriptContext, 'reserve' | 'reserveOn'> {
  const { pool, ref, params, connection, timeoutMs, record, deadline } = scope;
  return {
    reserve(requests, nodeOf, options) {
      const rollbackAt = options?.rollbackAt;
      const perClient = options?.perClient ?? 1;
      const clients = Array.from({ length: Math.ceil(requests.length / perClient) }, (_, index) => {
        const node = nodeOf?.(index);
        const own = requests.slice(index * perClient, (index + 1) * perClient);
        return { index, requests: own, ...(node ? { node } : {}), ...(rollbackAt ? { rollbackAt } : {}) };
      });
      return record.reserve(clients, async () => {
        const answered = await pool.drive({
          strategyModuleUrl: ref.moduleUrl,
          strategyImporter: STRATEGY_IMPORTER,
          connection,
          clients,
          nodes: params.nodes,
          timeoutMs,
          queueClock: deadline,
          ...(options?.lastAfter ? { lastAfter: options.lastAfter } : {}),
        });
        return answered.flatMap((c) => c.results);
      });
    },
    async reserveOn(session, request) {
      const [result] = await record.reserve(
        [{ index: 0, requests: [request] }],
        async (): Promise<[RequestResult]> => [await reserveOnSession(ref.strategy, session, request)],
      );
      return result;
    },
  };
}
