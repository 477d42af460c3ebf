import { requestKey, SCENARIO_INPUTS } from '../../fixtures/scenario-inputs.ts';
import type { OutcomeCounts } from '../case-result.ts';
import { exactly, firstSku, type Scenario } from './scenario.ts';

/** One user, N different keys at once: one active hold per user and sku (seed C28-04). */
export const userLimit: Scenario = {
  id: 'user-limit',
  summary: 'N clients, one user, N different request_keys at one barrier',
  kind: 'clients',
  input: SCENARIO_INPUTS['user-limit'],
  plan(params) {
    const sku = firstSku(params).sku;
    return {
      clients: Array.from({ length: params.clients }, (_, i) => ({
        index: i,
        requests: [{ requestKey: requestKey(i + 1), user: params.user, sku, ttlMs: params.ttlMs }],
      })),
    };
  },
  check(params, outcomes) {
    const expected: OutcomeCounts =
      firstSku(params).total === 0
        ? { SOLD_OUT: params.clients }
        : { HELD: 1, USER_LIMIT: params.clients - 1 };
    return exactly(expected, outcomes);
  },
};
