import { requestKey, SCENARIO_INPUTS, userId } from '../../fixtures/scenario-inputs.ts';
import { firstSku, type Scenario } from './scenario.ts';

/**
 * Many distinct users, one attempt each, all released at one barrier and then held again at
 * `after-read` until every client has read: the widest window a design can be given, on every run.
 */
export const contention: Scenario = {
  id: 'contention',
  summary:
    'N clients with distinct users start at one barrier, held together at after-read; one attempt each',
  input: SCENARIO_INPUTS.contention,
  plan(params) {
    const sku = firstSku(params).sku;
    return {
      holdAt: 'after-read',
      clients: Array.from({ length: params.clients }, (_, i) => ({
        index: i,
        requests: [{ requestKey: requestKey(i + 1), user: userId(i + 1), sku, ttlMs: params.ttlMs }],
      })),
    };
  },
  expectedOutcomes(params) {
    const held = Math.min(firstSku(params).total, params.clients);
    return { HELD: held, SOLD_OUT: params.clients - held };
  },
};
