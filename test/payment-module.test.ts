import { describe, expect, it } from 'vitest';
import { selectContracts } from '../harness/cli/payment-selection.ts';
import type { SpecFiles } from '../harness/cli/spec-files.ts';
import { specScenario } from '../harness/explore/spec-scenario.ts';
import { PAYMENT_VERBS } from '../harness/interleaving/payment-verbs.ts';
import { parseSpec } from '../harness/interleaving/spec-parser.ts';
import { checkPaymentAnswer, checkPaymentDesign } from '../harness/registry/payment-module.ts';
import { loadAllPaymentDesigns, loadPaymentDesign } from '../harness/registry/payment-registry.ts';
import { paymentSpecFile } from '../harness/scenario/payment/payment-spec-file.ts';
import paymentOnConflict from '../strategies/payment/on-conflict.ts';

describe('payment designs at load', () => {
  it('loads every built-in design, safe designs first, each control naming its checks', async () => {
    const designs = (await loadAllPaymentDesigns()).map(({ design }) => design);
    expect(designs.map((d) => `${d.id}:${d.expect}`)).toEqual([
      'payment-on-conflict:hold',
      'payment-advisory-lock:hold',
      'payment-serializable:hold',
      'payment-external-call-inside:hold',
      'payment-check-then-insert:violate',
      'payment-no-fingerprint:violate',
      'payment-split-outbox:violate',
      'payment-attempt-id-unique:violate',
      'payment-pending-cache:violate',
    ]);
    for (const d of designs.filter((d) => d.expect === 'violate'))
      expect(Object.keys(d.caughtBy ?? {}).length).toBeGreaterThan(0);
  });

  it('refuses a design missing a read, a control without caughtBy, an unknown check, in one line', () => {
    const { outboxFor: _, ...noOutbox } = paymentOnConflict;
    expect(checkPaymentDesign(noOutbox)).toEqual({
      problem: 'is not a valid payment design: outboxFor is missing',
    });
    expect(checkPaymentDesign({ ...paymentOnConflict, expect: 'violate' })).toEqual({
      problem: 'is not a valid payment design: caughtBy is missing',
    });
    const unknownCheck = checkPaymentDesign({ ...paymentOnConflict, caughtBy: { x: ['oversold'] } });
    expect('problem' in unknownCheck && unknownCheck.problem).toMatch(
      /^is not a valid payment design: caughtBy\.x\.0 /,
    );
    expect(checkPaymentDesign({ ...paymentOnConflict, contract: undefined })).toEqual({
      problem: 'is not a valid payment design: contract is missing',
    });
  });

  it('refuses an unknown id with the list to choose from', async () => {
    await expect(loadPaymentDesign('payment-nope')).rejects.toThrow(
      /^unknown payment design "payment-nope"; choose one of: payment-on-conflict, /,
    );
  });

  it("checks pay's answer: an outcome of the contract with a well-formed response", () => {
    const response = { paymentId: 'pay-a', order: 'order-1001', amount: 3000, currency: 'CNY' };
    expect(checkPaymentAnswer({ outcome: 'REUSED', response })).toEqual({
      answer: { outcome: 'REUSED', response },
    });
    expect(checkPaymentAnswer({ outcome: 'PAID' })).toHaveProperty('problem');
    expect(
      checkPaymentAnswer({ outcome: 'CREATED', response: { ...response, amount: '3000' } }),
    ).toHaveProperty('problem');
  });
});

describe('which contract a run drives', () => {
  const NO_SPECS: SpecFiles = { reservation: [], payment: [] };
  const ids = async (strategies: string[], scenarios: string[], specs = NO_SPECS) => {
    const s = await selectContracts(strategies, scenarios, specs);
    return {
      strategyNames: s.strategyNames,
      noReservationStrategy: s.noReservationStrategy,
      noReservationScenario: s.noReservationScenario,
      designs: s.payments.designs.map((r) => r.design.id),
      scenarios: s.payments.scenarios.map((p) => p.id),
    };
  };

  it('nothing named: every design and scenario of both contracts', async () => {
    const all = await ids([], []);
    expect(all.designs).toHaveLength(9);
    expect(all.scenarios).toHaveLength(9);
    expect(all).toMatchObject({
      strategyNames: [],
      noReservationStrategy: false,
      noReservationScenario: false,
    });
  });

  it('a payment id goes to the payment contract, every other name to reservations', async () => {
    expect(await ids(['hot-row', 'payment-on-conflict'], ['contention', 'payment-mismatch'])).toEqual({
      strategyNames: ['hot-row'],
      noReservationStrategy: false,
      noReservationScenario: false,
      designs: ['payment-on-conflict'],
      scenarios: ['payment-mismatch'],
    });
  });

  it('only one contract named: the other runs nothing', async () => {
    expect(await ids(['payment-serializable'], ['payment-seed-workers'])).toMatchObject({
      noReservationStrategy: true,
      noReservationScenario: true,
    });
    expect(await ids(['hot-row'], ['contention'])).toMatchObject({ designs: [], scenarios: [] });
    const reserving = specScenario(
      'setup { STOCK sku-a 1 }\nsession s1\nstep a { RESERVE k u sku-a }\npermutation a',
      'r.spec',
    );
    const paying = 'session w1\nstep a { PAY idem-1 pay-1 }\npermutation a';
    expect(await ids([], [], { ...NO_SPECS, reservation: [reserving] })).toMatchObject({
      scenarios: [],
      noReservationScenario: false,
    });
    // A spec of PAY steps is a payment scenario: the reservation harness has nothing to run.
    expect(
      await ids([], [], {
        ...NO_SPECS,
        payment: [paymentSpecFile(parseSpec(paying, 'p.spec', [PAYMENT_VERBS]), paying, 'p.spec')],
      }),
    ).toMatchObject({ scenarios: ['p'], noReservationScenario: true, noReservationStrategy: false });
  });
});
