import { SCENARIO_INPUTS } from '../../fixtures/scenario-inputs.ts';
import type { OutcomeCounts } from '../case-result.ts';
import { exactly, firstSku, type Scenario } from './scenario.ts';

/** Every client sends the same request at once: one reservation, the rest replays (seed C28-04). */
export const duplicateKey: Scenario = {
  id: 'duplicate-key',
  summary: 'N clients send one request_key (same user, same sku) at one barrier',
  kind: 'clients',
  input: SCENARIO_INPUTS['duplicate-key'],
  plan(params) {
    const request = {
      requestKey: 'req-dup',
      user: params.user,
      sku: firstSku(params).sku,
      ttlMs: params.ttlMs,
    };
    return { clients: Array.from({ length: params.clients }, (_, i) => ({ index: i, requests: [request] })) };
  },
  check(params, outcomes) {
    const expected: OutcomeCounts =
      firstSku(params).total === 0 ? { SOLD_OUT: params.clients } : { HELD: 1, REPLAY: params.clients - 1 };
    return exactly(expected, outcomes);
  },
};
