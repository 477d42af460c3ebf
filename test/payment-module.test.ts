import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chooseContracts } from '../harness/cli/contract-selection.ts';
import {
  checkPaymentAnswer,
  checkPaymentDesign,
} from '../harness/contracts/payment/designs/payment-module.ts';
import {
  loadAllPaymentDesigns,
  loadPaymentDesign,
} from '../harness/contracts/payment/designs/payment-registry.ts';
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
  const scratch = mkdtempSync(join(tmpdir(), 'reservebench-choice-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const specFile = (name: string, text: string) => {
    const file = join(scratch, name);
    writeFileSync(file, text);
    return file;
  };
  const chosen = async (strategies: string[], scenarios: string[], specs: string[] = []) => {
    const choice = await chooseContracts(strategies, scenarios, specs);
    return Object.fromEntries(
      choice.contracts.map((c) => [
        c.contract.id,
        { designs: c.designNames, scenarios: c.scenarios.map((s) => s.id) },
      ]),
    );
  };

  it('nothing named: every design and scenario of every contract', async () => {
    const all = await chosen([], []);
    expect(Object.keys(all)).toEqual(['reservation', 'payment', 'order']);
    expect(all.payment).toMatchObject({ designs: [] });
    expect(all.payment?.scenarios).toHaveLength(9);
  });

  it('a payment id goes to the payment contract, every other name to reservations', async () => {
    expect(await chosen(['hot-row', 'payment-on-conflict'], ['contention', 'payment-mismatch'])).toEqual({
      reservation: { designs: ['hot-row'], scenarios: ['contention'] },
      payment: { designs: ['payment-on-conflict'], scenarios: ['payment-mismatch'] },
    });
  });

  it('only one contract named: the other runs nothing', async () => {
    expect(Object.keys(await chosen(['payment-serializable'], ['payment-two-workers']))).toEqual(['payment']);
    expect(Object.keys(await chosen(['hot-row'], ['contention']))).toEqual(['reservation']);
    const reserving = specFile(
      'r.spec',
      'setup { STOCK sku-a 1 }\nsession s1\nstep a { RESERVE k u sku-a }\npermutation a',
    );
    expect(await chosen([], [], [reserving])).toEqual({ reservation: { designs: [], scenarios: ['r'] } });
    // A spec of PAY steps is a payment scenario: the reservation contract has nothing to run.
    const paying = specFile('p.spec', 'session w1\nstep a { PAY idem-1 pay-1 }\npermutation a');
    expect(await chosen([], [], [paying])).toEqual({ payment: { designs: [], scenarios: ['p'] } });
  });
});
