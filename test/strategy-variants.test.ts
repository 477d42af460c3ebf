/**
 * A design's knobs from the command line to every process that loads it: `--param` parsed and bounded,
 * each value a variant with its own id, carried in the module URL's fragment so that a worker thread
 * importing the design by URL builds the same variant.
 */
import { describe, expect, it } from 'vitest';
import { PAYMENT } from '../harness/contracts/payment/contract.ts';
import { checkPaymentDesign } from '../harness/contracts/payment/designs/payment-module.ts';
import {
  importPaymentDesign,
  loadPaymentDesign,
  type PaymentDesignRef,
  paymentVariants,
} from '../harness/contracts/payment/designs/payment-registry.ts';
import {
  BUILT_IN_IDS,
  importStrategy,
  loadStrategy,
} from '../harness/contracts/reservation/designs/registry.ts';
import { exploredVariant } from '../harness/explore/explored-variant.ts';
import { checkStrategy } from '../harness/registry/strategy-module.ts';
import {
  type ParamSweep,
  parseParamSweep,
  refuseStraySweep,
  strategyVariants,
} from '../harness/registry/strategy-variants.ts';
import type { StrategyRef } from '../strategies/contract.ts';

/** Both contracts' designs with a sweep's variants, as `run` makes them (the sweep naming only these). */
function withKnobVariants(strategies: StrategyRef[], payments: PaymentDesignRef[], sweep: ParamSweep) {
  refuseStraySweep(sweep, [...strategies.map((r) => r.strategy.id), ...payments.map((r) => r.design.id)]);
  return { strategies: strategyVariants(strategies, sweep), payments: paymentVariants(payments, sweep) };
}

describe('--param', () => {
  it('parses one knob per value given, each value a whole number', () => {
    const sweep = parseParamSweep(['bucketed.buckets=1,4,16']);
    expect([...(sweep.get('bucketed') ?? [])]).toEqual([['buckets', [1, 4, 16]]]);
    for (const bad of [
      'bucketed.buckets',
      'bucketed=4',
      'bucketed.buckets=1.5',
      'bucketed.buckets=',
      'x.y=1,,2',
    ]) {
      expect(() => parseParamSweep([bad]), bad).toThrow(/--param must be <design>\.<knob>=/);
    }
    expect(() => parseParamSweep(['bucketed.buckets=1', 'bucketed.buckets=2'])).toThrow(/given twice/);
  });

  it('turns a design into one variant per value, with its own id and module URL', async () => {
    const ref = await loadStrategy('bucketed');
    const variants = withKnobVariants([ref], [], parseParamSweep(['bucketed.buckets=1,16'])).strategies;
    expect(variants.map((v) => v.strategy.id)).toEqual(['bucketed[buckets=1]', 'bucketed[buckets=16]']);
    expect(variants.map((v) => v.moduleUrl)).toEqual([
      `${ref.moduleUrl}#buckets=1`,
      `${ref.moduleUrl}#buckets=16`,
    ]);
    // A worker imports the variant by its URL and gets the same design.
    const again = await importStrategy(variants[1]?.moduleUrl ?? '');
    expect(again.id).toBe('bucketed[buckets=16]');
    expect(again.expect).toBe('hold');
  });

  it('refuses a knob out of bounds, an unknown knob, a design without knobs or not run', async () => {
    const bucketed = await loadStrategy('bucketed');
    const hotRow = await loadStrategy('hot-row');
    const refused = (refs: (typeof bucketed)[], param: string) => () =>
      withKnobVariants(refs, [], parseParamSweep([param]));
    expect(refused([bucketed], 'bucketed.buckets=0')).toThrow(
      /bucketed\.buckets must be a whole number from 1 to 256, got 0/,
    );
    expect(refused([bucketed], 'bucketed.rows=2')).toThrow(/bucketed has no knob "rows"; its knobs: buckets/);
    expect(refused([hotRow], 'hot-row.x=1')).toThrow(/hot-row has no knobs/);
    expect(refused([hotRow], 'bucketed.buckets=2')).toThrow(
      /--param names "bucketed", which is not run here/,
    );
  });

  it('holds a plug-in to both halves of a knob: the parameters and configure', async () => {
    const { strategy } = await loadStrategy('hot-row');
    const knob = { buckets: { describe: 'rows', default: 4, min: 1, max: 8 } };
    expect(checkStrategy({ ...strategy, parameters: knob })).toMatchObject({
      problem: expect.stringMatching(/configure is missing/),
    });
    expect(
      checkStrategy({
        ...strategy,
        parameters: { rows: { ...knob.buckets, default: 9 } },
        configure: () => strategy,
      }),
    ).toMatchObject({ problem: expect.stringMatching(/default 9 is outside 1–8/) });
    expect(BUILT_IN_IDS).toContain('bucketed');
  });

  it('gives a payment design its knobs the same way, beside the reservation strategies', async () => {
    const bucketed = await loadStrategy('bucketed');
    const call = await loadPaymentDesign('payment-external-call-inside');
    const onConflict = await loadPaymentDesign('payment-on-conflict');
    const swept = withKnobVariants(
      [bucketed],
      [onConflict, call],
      parseParamSweep(['payment-external-call-inside.callMs=0,50', 'bucketed.buckets=2']),
    );
    expect(swept.strategies.map((r) => r.strategy.id)).toEqual(['bucketed[buckets=2]']);
    expect(swept.payments.map((r) => r.design.id)).toEqual([
      'payment-on-conflict',
      'payment-external-call-inside[callMs=0]',
      'payment-external-call-inside[callMs=50]',
    ]);
    const again = await importPaymentDesign(swept.payments[2]?.moduleUrl ?? '');
    expect(again.id).toBe('payment-external-call-inside[callMs=50]');
    expect(again.expect).toBe('hold');
    const refused = (param: string) => () => withKnobVariants([], [call], parseParamSweep([param]));
    expect(refused('payment-external-call-inside.callMs=10001')).toThrow(
      /payment-external-call-inside\.callMs must be a whole number from 0 to 10000, got 10001/,
    );
    expect(refused('payment-on-conflict.callMs=1')).toThrow(/"payment-on-conflict", which is not run here/);
    expect(() => withKnobVariants([], [onConflict], parseParamSweep(['payment-on-conflict.x=1']))).toThrow(
      /payment-on-conflict has no knobs/,
    );
    const { configure: _, ...halfKnob } = call.design;
    expect(checkPaymentDesign(halfKnob)).toMatchObject({
      problem: expect.stringMatching(/configure is missing/),
    });
  });
});

describe('a knob the explorer sets', () => {
  it('explores a design whose knob only slows it with the value it declares, under its own id', async () => {
    const call = await loadPaymentDesign('payment-external-call-inside');
    expect(call.design.parameters?.callMs?.explored).toBe(0);
    const explored = exploredVariant(PAYMENT.designs, call);
    expect(explored.design.id).toBe('payment-external-call-inside[callMs=0]');
    expect((await importPaymentDesign(explored.moduleUrl)).id).toBe(explored.design.id);
    // A design without such a knob, and one the user gave values, are explored as given.
    const onConflict = await loadPaymentDesign('payment-on-conflict');
    expect(exploredVariant(PAYMENT.designs, onConflict)).toBe(onConflict);
    const [given] = paymentVariants([call], parseParamSweep(['payment-external-call-inside.callMs=50']));
    expect(given && exploredVariant(PAYMENT.designs, given)).toBe(given);
    const { strategy } = await loadStrategy('bucketed');
    const knob = strategy.parameters?.buckets;
    expect(knob).toBeDefined();
    expect(
      checkStrategy({ ...strategy, parameters: { buckets: { ...knob, explored: (knob?.max ?? 0) + 1 } } }),
    ).toMatchObject({ problem: expect.stringMatching(/explored \d+ is outside/) });
  });
});
