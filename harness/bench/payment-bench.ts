/**
 * A payment design's bench series: its clients pay in pairs (seed 002's two workers per key), clients 2k
 * and 2k+1 sending the same stream of keys k-0, k-1, … with the seed's payload, each proposing its own
 * payment id; with an odd count the last client's keys are its own. Every client sends its first key
 * whatever the phase, so each pair sends at least one key twice. Throughput counts CREATED answers
 * (payments made); the audit is the harness's: every key answered CREATED or REUSED got exactly one
 * CREATED answer, and the design's own count of payments and outbox rows is that number.
 */
import type { PaymentDesignRef } from '../registry/payment-registry.ts';
import type { BenchDesign } from './bench-design.ts';

/** The pair a client pays with: its keys are the pair's. */
export const payingPair = (client: number) => Math.floor(client / 2);

/** Key n of a pair's stream. */
export const pairKey = (pair: number, n: number) => `bench-pay-${pair}-${n}`;

export function paymentBenchDesign(ref: PaymentDesignRef): BenchDesign {
  const { design } = ref;
  return {
    contract: 'payment',
    id: design.id,
    moduleUrl: ref.moduleUrl,
    counted: 'CREATED',
    setup: (db) => design.setup(db),
    audit: async (db, _stock, merged) => {
      const { created, keys } = merged.payments ?? { created: 0, keys: 0 };
      const audit = await design.audit(db);
      const problems = [
        ...(created !== keys
          ? [`${created} CREATED answers for ${keys} keys answered: a key paid twice, or reused unpaid`]
          : []),
        ...(audit.payments !== created || audit.outbox !== created
          ? [
              `the design counts ${audit.payments} payments and ${audit.outbox} outbox rows for ${created} CREATED answers`,
            ]
          : []),
      ];
      return { drift: 0, oversold: 0, problems };
    },
  };
}
