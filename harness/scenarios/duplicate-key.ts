import { SCENARIO_INPUTS } from '../../fixtures/scenario-inputs.ts';
import { firstSku, type Scenario } from './scenario.ts';

/** Every client sends the same request at once: one reservation, the rest replays (seed C28-04). */
export const duplicateKey: Scenario = {
  id: 'duplicate-key',
  summary: 'N clients send one request_key (same user, same sku) at one barrier',
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
  expectedOutcomes(params) {
    if (firstSku(params).total === 0) return { SOLD_OUT: params.clients };
    return { HELD: 1, REPLAY: params.clients - 1 };
  },
};
