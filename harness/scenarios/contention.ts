import { requestKey, SCENARIO_INPUTS, userId } from '../../fixtures/scenario-inputs.ts';
import type { ClientScript } from '../client-task.ts';
import { exactly, firstSku, type Scenario, type ScenarioParams } from './scenario.ts';

/** One client per user (user-0001 …), one request each, on the first sku. */
export function distinctUserClients(params: ScenarioParams): ClientScript[] {
  const sku = firstSku(params).sku;
  return Array.from({ length: params.clients }, (_, i) => ({
    index: i,
    requests: [{ requestKey: requestKey(i + 1), user: userId(i + 1), sku, ttlMs: params.ttlMs }],
  }));
}

/**
 * Many distinct users, one attempt each, all released at one barrier and then held again at
 * `after-read` until every client has read: the widest window a design can be given, on every run.
 */
export const contention: Scenario = {
  id: 'contention',
  summary:
    'N clients with distinct users start at one barrier, held together at after-read; one attempt each',
  kind: 'clients',
  input: SCENARIO_INPUTS.contention,
  plan: (params) => ({ holdAt: 'after-read', clients: distinctUserClients(params) }),
  check(params, outcomes) {
    const held = Math.min(firstSku(params).total, params.clients);
    return exactly({ HELD: held, SOLD_OUT: params.clients - held }, outcomes);
  },
};
