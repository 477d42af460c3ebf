/**
 * The reservation contract's fields of report.json (its cases, the boundary table, coverage, the isolation
 * and version matrices, a black box's target) as zod schemas: the report document joins them with every
 * other contract's (harness/report/report-schema.ts), which checks every report before it is written and
 * generates docs/report.schema.json.
 */
import { z } from 'zod';
import {
  CHECKS,
  ISOLATION_LEVELS,
  OUTCOMES,
  PAUSE_POINTS,
  STATUSES,
} from '../../../../strategies/contract.ts';
import {
  count,
  explorationSchema,
  historySchema,
  latencySchema,
  observedSchema,
  outcomeCountsSchema,
  permutationSchema,
  stepSchemaOf,
} from '../../../verdict/case-result-schema.ts';
import { ENDPOINTS } from '../blackbox/exchange-log.ts';

const invariantsSchema = z
  .strictObject({
    total: count.describe('stock given to setup'),
    // What a strategy says remains can be anything a broken design makes of it, negative too.
    available: z.number().int().describe('Σ remaining(sku), as the strategy says'),
    active: count.describe('keys whose final status is HELD or CONFIRMED'),
    drift: z.number().int().describe('Σ per sku of total − remaining − active; 0 when stock and holds agree'),
    oversold: count.describe('Σ per sku of max(0, active − total)'),
    duplicateActive: count.describe('(user, sku) pairs with more than one active key'),
    duplicateKey: count
      .optional()
      .describe('request_keys owning more than one row (seen by the audit only; absent without an audit)'),
    lostAcknowledged: count.describe('HELD answers whose key is gone or ended unexplained'),
    unacknowledgedActive: count.describe('active keys no client was told about'),
    falseSoldOut: count.describe('SOLD_OUT answers that unsold stock could have served (a boundary)'),
    auditMismatch: count
      .optional()
      .describe("disagreements between the strategy's audit and the final read (absent without an audit)"),
    reconciled: z.boolean().optional().describe('designs that keep books: every counter adds up'),
    ledgerReplayDrift: z.number().optional().describe('designs that keep books: ledger replay vs counters'),
  })
  .describe("The harness's own counts, from the answers and its final read through the business API");

const skuCountsSchema = z.strictObject({
  sku: z.string(),
  total: count,
  available: z.number().int(),
  active: count,
});

const auditSchema = z
  .strictObject({
    skus: z.array(skuCountsSchema),
    duplicateActive: count,
    duplicateKey: count,
    activeKeys: count,
    endedKeys: count,
  })
  .describe("The strategy's own reading of its tables, compared with the final read");

const endpointFactsSchema = z.strictObject({
  endpoint: z.enum(ENDPOINTS),
  requests: count.describe('exchanges, every attempt included'),
  codes: z
    .record(z.string(), count)
    .describe('exchanges by status code (`network`: no HTTP answer: refused, reset, timed out)'),
  retried503: count.describe('503 answers with Retry-After sent again with the same key'),
  latency: latencySchema.describe('per exchange, in ms (HDR histogram)'),
});

export const httpFactsSchema = z
  .strictObject({
    endpoints: z.array(endpointFactsSchema),
    retried503: count.describe('Σ retried503 over the endpoints'),
  })
  .describe("A black box's HTTP exchanges (run --target): per endpoint, status codes, 503s retried, latency");

const skuReadingSchema = z.strictObject({
  sku: z.string(),
  total: count,
  remaining: z.number().int(),
  active: count,
  drift: z.number().int(),
});

const finalReadSchema = z
  .strictObject({
    statuses: z.record(z.string(), count).describe('how many of the keys sent ended in each status'),
    skus: z.array(skuReadingSchema),
    indeterminate: z
      .strictObject({ committed: count, notCommitted: count })
      .optional()
      .describe('keys whose answer a fault cut off, as the final read explains them'),
  })
  .describe('What the harness read back through status() and remaining() after the case');

const probeSchema = z
  .strictObject({
    sku: z.string(),
    expected: count.describe('units due: remaining(sku) at the final read, 0 for a disabled sku'),
    sold: count.describe('HELD answers the probe got'),
    answers: z.record(z.string(), count).describe("the probe's answers by outcome"),
    disabled: z.literal(true).optional(),
    capped: count
      .optional()
      .describe('more was due than the probe sells: it sold up to this many and stopped'),
    refusedBy: z.string().optional().describe('a node that answered neither HELD nor SOLD_OUT'),
  })
  .describe(
    'The sell-what-remains probe of one sku: after the final read, reserves with keys and users of its own, node by node, until refused',
  );

const copySchema = z
  .strictObject({
    member: z.string(),
    role: z
      .enum(['survivor', 'discarded'])
      .describe('survivor: writable at the end; discarded: writable once (an old primary), not any more'),
    active: count.describe('keys the case sent that are HELD or CONFIRMED on this copy'),
    available: z.number().int().describe('Σ remaining(sku) on this copy'),
    acknowledgedOnlyHere: count.describe('acknowledged holds active here and on no survivor'),
  })
  .describe("One member's copy, as the final read found it");

const coverageSchema = z.strictObject({
  exercised: z.array(z.string()).describe('contract operations the case called'),
  pausePoints: z.array(z.string()).describe('operation:pause-point pairs it held or killed at'),
});

const checkSchema = z.enum(CHECKS);

const reserveAnswerSchema = z.strictObject({
  outcome: z.enum(OUTCOMES),
  status: z.enum(STATUSES).optional(),
});

const stepSchema = stepSchemaOf({
  answer: reserveAnswerSchema,
  pausePoints: PAUSE_POINTS,
  value: z
    .union([z.boolean(), z.number(), z.enum([...STATUSES, 'NOT_FOUND'])])
    .describe("a lifecycle step's return, or a STATUS / REMAINING step's answer"),
});

export const phaseSchema = z
  .strictObject({
    label: z
      .string()
      .describe(
        'what the phase did: `reserve`, `replay`, `reserve over HTTP`, with the lifecycle steps before it (`after expire ×2 (5 units back)`) or while it ran (`during database crash`); `then …` for steps after the last requests',
      ),
    outcomes: outcomeCountsSchema.describe("this phase's answers alone"),
  })
  .describe('One phase of a case');

const identity = {
  id: z
    .string()
    .describe(
      'scenario/strategy, with @isolation and #repetition when the run had them, after pg<major>/ with several --postgres',
    ),
  scenario: z.string(),
  strategy: z.string(),
  expect: z
    .enum(['hold', 'violate', 'measure'])
    .describe('hold: a safe design; violate: a negative control; measure: a level the design does not claim'),
  isolation: z.enum(ISOLATION_LEVELS).optional(),
  postgres: z.string().optional().describe('the server version the case ran on, with several --postgres'),
  durationMs: count.optional().describe('wall time of the whole case in ms'),
};

const judged = {
  ...identity,
  outcomes: outcomeCountsSchema.describe('every answer of the case, summed over its phases'),
  phases: z.array(phaseSchema).describe('the outcomes phase by phase; they add up to `outcomes`'),
  invariants: invariantsSchema,
  audit: auditSchema.optional().describe('absent for a black box, which has none (see noAudit)'),
  noAudit: z.string().optional().describe('why there is no audit: `no audit: black box (…)`'),
  finalRead: finalReadSchema,
  history: historySchema,
  sellsWhatRemains: z
    .array(probeSchema)
    .optional()
    .describe('the sell-what-remains probe, per sku (absent where the case has none)'),
  coverage: coverageSchema,
  fired: z.array(checkSchema).describe('every check that fired, whatever the expectation'),
  retries: z.record(z.string(), count).optional().describe('retries the strategy reported, by reason'),
  sqlstates: z.record(z.string(), count).optional().describe('requests that failed, by SQLSTATE'),
  boundary: z.string().describe('one line on what the case showed'),
  problems: z.array(z.string()).describe('each expectation missed; empty on pass'),
  latency: latencySchema.optional().describe('per-request latency of a clients or script scenario'),
  http: httpFactsSchema.optional(),
  steps: z.array(stepSchema).optional().describe("an interleaving's recorded steps"),
  observations: z.record(z.string(), observedSchema).optional(),
  permutations: z.array(permutationSchema).optional(),
  boundaryNote: z.string().optional(),
  headline: z.literal(true).optional(),
  keptSchema: z.string().optional().describe("the schema holding a failed case's tables"),
  copies: z
    .array(copySchema)
    .optional()
    .describe(
      'a cluster case: every member writable at some point, the authority first; lostAcknowledged and oversold count across them (docs/cluster.md)',
    ),
  exploration: explorationSchema.optional(),
};

export const caseResultSchema = z
  .discriminatedUnion('status', [
    z.strictObject({ ...judged, status: z.literal('pass') }),
    z.strictObject({ ...judged, status: z.literal('fail') }),
    z.strictObject({
      ...identity,
      status: z.literal('n/a'),
      outcomes: outcomeCountsSchema,
      invariants: z.null(),
      boundary: z.string(),
      reason: z.string(),
      coverage: z.strictObject({
        missing: z
          .array(z.string())
          .describe('what the strategy lacks; empty when it chose not to take part'),
      }),
    }),
    z.strictObject({
      ...identity,
      status: z.literal('broken'),
      outcomes: outcomeCountsSchema,
      invariants: z.null(),
      boundary: z.string(),
      problems: z.array(z.string()),
      keptSchema: z.string().optional().describe("the schema holding the broken case's tables"),
    }),
  ])
  .describe('One case: a scenario against a strategy (pass, fail, n/a or broken)');

const findingSchema = z.strictObject({
  what: z.string().describe("the case's own line on what broke, was caught, or where the design waits"),
  shownBy: z.string().describe('the first case that showed it'),
  cases: count.describe('how many cases of that scenario showed it'),
});

export const boundaryRowSchema = z
  .strictObject({
    strategy: z.string(),
    expect: z.enum(['hold', 'violate']),
    guarantee: z.string().describe('how the design stays correct, in its own words'),
    holds: z
      .string()
      .describe('what held: cases that kept every invariant, with the headline case and its counts'),
    breaks: z
      .array(findingSchema)
      .describe('where it broke (or was caught), one entry per scenario that showed it; empty when none'),
    waits: findingSchema.optional().describe('sessions seen waiting on its locks, then completing'),
    notCovered: z.array(z.string()).describe('scenarios not covered for lack of an operation or pause point'),
    boundary: z.string().describe('the one cell the tables show: holds, breaks, waits, not covered'),
    counts: z.string().describe("the headline case's counts"),
    shownBy: z.string().describe('the cases that show the breaks, else the waits, else the headline case'),
  })
  .describe('One row per strategy: what holds and where it breaks, each with the case that shows it');

export const coverageRowSchema = z.strictObject({
  strategy: z.string(),
  expect: z.enum(['hold', 'violate', 'measure']),
  cells: z.record(z.string(), z.enum(['pass', 'fail', 'n/a', 'broken', 'not covered'])),
  gaps: z.array(z.string()),
});

export const isolationRowSchema = z.strictObject({
  strategy: z.string(),
  level: z.string(),
  claim: z.enum(['claimed', 'measured']),
  held: z.boolean(),
  broke: z.array(z.string()),
  sqlstates: z.record(z.string(), count),
  retries: count,
  cases: count,
  shownBy: z.string(),
});

export const versionRowSchema = z
  .strictObject({
    strategy: z.string(),
    postgres: z.string().describe('the server version, as the server reports it (15.18)'),
    status: z
      .enum(['pass', 'fail', 'n/a'])
      .describe('fail: some case failed or broke; n/a: every case was n/a; else pass'),
    reason: z.string().optional().describe('why every case was n/a (a design needing a newer version, …)'),
    blocked: z
      .array(z.string())
      .describe('per interleaving case that saw steps blocked on this version: "scenario: step, step"'),
    cases: count,
  })
  .describe('One design on one server version (run --postgres with several majors)');

export const targetSchema = z.strictObject({
  urls: z.array(z.string()).describe('the base URLs, one per node; client i goes to node i mod n'),
  setup: z
    .enum(['reset', 'command', 'none'])
    .describe('how each case loaded its stock: POST /admin/reset, --target-setup, or not at all'),
  restart: z.enum(['command', 'none']).describe('--target-restart given, or restart scenarios n/a'),
  expect: z.enum(['hold', 'violate']),
  caughtBy: z.record(z.string(), z.array(z.enum(CHECKS))).optional(),
  ran: z.array(z.string()).describe('scenarios that ran black-box'),
  notApplicable: z
    .array(z.strictObject({ scenario: z.string(), reason: z.string() }))
    .describe('scenarios that did not run against the target, each with its one-line reason'),
  notes: z.array(z.string()).describe('what the run could not do and why (no setup, no restart hook, …)'),
  http: httpFactsSchema.describe('every exchange of the run'),
});

/** The report's fields of the reservation contract. */
export const RESERVATION_REPORT_SHAPE = {
  cases: z.array(caseResultSchema),
  boundary: z.array(boundaryRowSchema),
  coverage: z.array(coverageRowSchema),
  isolation: z.array(isolationRowSchema).describe('design × isolation level, with --isolation'),
  versions: z
    .array(versionRowSchema)
    .describe('design × PostgreSQL version, with several --postgres; empty for a run on one server'),
  target: targetSchema.optional().describe('run --target: the black box the run drove over HTTP'),
};

/** The reservation contract's part of a report, as written. */
export type ReservationReport = z.infer<z.ZodObject<typeof RESERVATION_REPORT_SHAPE>>;
