/**
 * A payment design's bench series: its clients pay in pairs (the isolation-matrix chapter's two workers per
 * key), clients 2k and 2k+1 sending the same stream of keys k-0, k-1, … with the payment drill's payload,
 * each proposing its own payment id; with an odd count the last client's keys are its own. Every client sends
 * its first key whatever the phase, so each pair sends at least one key twice. Throughput counts CREATED
 * answers (payments made); the audit is the harness's: every key answered CREATED or REUSED got exactly one
 * CREATED answer, and the design's own count of payments and outbox rows is that number.
 */
import { refusedNeed } from '../../case/applicability.ts';
import type { DesignSeries } from '../../contract/bench-series.ts';
import type { BenchSeriesCounts, ContractBench, MarkdownBlock } from '../../contract/contract.ts';
import type { PaymentDesignRef } from './designs/payment-registry.ts';

const SENDER = new URL('./bench-sender.ts', import.meta.url).href;

/** The pair a client pays with: its keys are the pair's. */
export const payingPair = (client: number) => Math.floor(client / 2);

/** Key n of a pair's stream. */
export const pairKey = (pair: number, n: number) => `bench-pay-${pair}-${n}`;

function paymentSeries({ design }: PaymentDesignRef): DesignSeries {
  return {
    counted: 'CREATED',
    sender: SENDER,
    group: payingPair,
    // A payment design needing a capability the server refused (payment-serializable: SSI).
    refusal: (db) => refusedNeed(design.needs ?? [], db.capabilities),
    setup: (db) => design.setup(db),
    audit: async (db, _stock, totals) => {
      const created = totals.counted;
      const keys = totals.tally.keys ?? 0;
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

/** `key:count …`, or 0 for none. */
const shownCounts = (counts: Readonly<Record<string, number>>) =>
  Object.entries(counts)
    .map(([k, v]) => `${k}:${v}`)
    .join(' ') || '0';

/** The payment series' answers and the audit's counts, over every trial. */
function paymentSection(series: readonly BenchSeriesCounts[]): MarkdownBlock[] {
  return [
    '## Payments',
    '',
    "Counted over every trial, warm-up included: the harness's audit holds CREATED answers = distinct keys answered = the payments and outbox rows the design counts.",
    '',
    {
      headers: [
        'strategy',
        'commits',
        'clients',
        'CREATED',
        'keys answered',
        'REUSED (measured)',
        'other answers (measured)',
      ],
      rows: series.map((e) => [
        e.strategy,
        e.durability === 'on' ? 'durable' : 'not durable',
        String(e.clients),
        String(e.tally?.created ?? 0),
        String(e.tally?.keys ?? 0),
        String(e.outcomes.REUSED ?? 0),
        shownCounts(
          Object.fromEntries(Object.entries(e.outcomes).filter(([k]) => k !== 'CREATED' && k !== 'REUSED')),
        ),
      ]),
    },
    '',
  ];
}

/** The payment contract's bench series (ContractBench). */
export const PAYMENT_BENCH = {
  unit: 'payments/s',
  shortUnit: 'pay/s',
  note: [
    'Throughput is CREATED answers (payments made) per second in the measured window. Clients pay in pairs,',
    "the isolation-matrix chapter's two workers per key: clients 2k and 2k+1 send the same keys in turn,",
    'so each key is sent twice (with an odd count the last client pays alone); latency per request in ms',
    '(HDR histogram),',
  ],
  ok: 'every series ran and paid each key once',
  design: paymentSeries,
  section: paymentSection,
} satisfies ContractBench<PaymentDesignRef>;
