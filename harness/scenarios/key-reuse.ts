import { SCENARIO_INPUTS } from '../../fixtures/scenario-inputs.ts';
import { exactly, type Scenario } from './scenario.ts';

/**
 * One key reserved, then sent again by another user and for another sku: both are errors and write
 * nothing (the audit shows one active row and the second sku untouched).
 */
export const keyReuse: Scenario = {
  id: 'key-reuse',
  summary: 'one request_key reserved, then resent with another user and with another sku',
  kind: 'clients',
  input: SCENARIO_INPUTS['key-reuse'],
  plan(params) {
    const [first, second] = params.stock;
    if (!first || !second) throw new Error('key-reuse needs two skus');
    const key = 'req-reuse';
    return {
      clients: [
        {
          index: 0,
          requests: [
            { requestKey: key, user: params.user, sku: first.sku, ttlMs: params.ttlMs },
            { requestKey: key, user: 'user-0043', sku: first.sku, ttlMs: params.ttlMs },
            { requestKey: key, user: params.user, sku: second.sku, ttlMs: params.ttlMs },
          ],
        },
      ],
    };
  },
  check(params, outcomes) {
    return exactly(params.stock[0]?.total === 0 ? { SOLD_OUT: 3 } : { HELD: 1, KEY_REUSED: 2 }, outcomes);
  },
};
