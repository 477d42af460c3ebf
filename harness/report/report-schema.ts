/**
 * The report document of `reservebench run` (report.json, `run --json`) defined once, with zod: the
 * TypeScript type `Report` is inferred from it, every report is checked against it before it is written,
 * and `docs/report.schema.json` is generated from it (`npx tsx scripts/report-schema.ts`; a test fails when
 * the committed file is stale). Objects are strict: a field the schema does not name is an error, so the
 * schema cannot fall behind the code without a test noticing.
 */
import { z } from 'zod';
import {
  CAPABILITIES,
  type Capability,
  CHECKS,
  ISOLATION_LEVELS,
  OUTCOMES,
  PAUSE_POINTS,
  STATUSES,
} from '../../strategies/contract.ts';
import { PAYMENT_CHECKS, PAYMENT_OUTCOMES } from '../../strategies/payment/contract.ts';
import { CLUSTER_BACKENDS } from '../database/environment.ts';
import { ENDPOINTS } from '../verdict/exchange-log.ts';
import { configurationSchema } from './configuration-schema.ts';

const count = z.number().int().nonnegative();

/** Answer counts by outcome (`HELD`, `SOLD_OUT`, …, `ROLLED_BACK`, `INDETERMINATE`, `ERROR`); absent means 0. */
export const outcomeCountsSchema = z
  .record(z.string(), count)
  .describe(
    'Answer counts by outcome (HELD, REPLAY, SOLD_OUT, USER_LIMIT, KEY_REUSED, BAD_REQUEST, GAVE_UP, ROLLED_BACK, INDETERMINATE, ERROR); an absent outcome means 0',
  );

export const environmentSchema = z
  .strictObject({
    node: z.string().describe('Node.js version of the harness'),
    client: z
      .strictObject({ reservebench: z.string(), pg: z.string() })
      .optional()
      .describe(
        'the harness version and the PostgreSQL driver (pg) version; absent in reports of 0.1.0 before it was recorded',
      ),
    postgres: z.string().describe('server_version of the database the run used'),
    settings: z
      .record(z.string(), z.string())
      .describe(
        'Server settings that matter to the numbers, as the run read them (synchronous_commit, fsync, …)',
      ),
    cpus: z.number().int().positive(),
    commit: z.string().describe('git commit of the harness (short), or "unknown"'),
    database: z
      .enum(['embedded', 'url', 'target'])
      .describe(
        'the embedded server, one given by --database-url, or none: a black box driven over HTTP (run --target)',
      ),
    capabilities: z
      .strictObject(
        Object.fromEntries(CAPABILITIES.map((c) => [c, z.union([z.literal(true), z.string()])])) as Record<
          Capability,
          z.ZodUnion<[z.ZodLiteral<true>, z.ZodString]>
        >,
      )
      .optional()
      .describe(
        "What the server let the run do, probed on connect (skipLocked, nowait, advisoryLocks, lockView, readCommitted, repeatableRead, serializable, returningOld, synchronousCommit): true, or the server's answer refusing it; a case needing a refused one is n/a. Absent for a black box",
      ),
    cluster: z
      .strictObject({
        backend: z.enum(CLUSTER_BACKENDS),
        manager: z.string().optional().describe('the failover manager and its version (patroni 3.0.2)'),
        members: count.optional().describe("a user's cluster: its members"),
        replication: z.enum(['sync', 'async']).optional().describe("a user's cluster: as its primary says"),
      })
      .optional()
      .describe(
        'the cluster the cluster scenarios ran on (run --cluster; docs/cluster.md); the embedded one is made per case, shaped as each scenario says',
      ),
  })
  .describe('What a reader needs to judge the numbers');

export const sourceEntrySchema = z
  .strictObject({
    kind: z.enum(['design', 'scenario']),
    id: z.string(),
    file: z.string().describe('the entry file, relative to the repository when inside it, else absolute'),
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .describe('over every file of `files`, each as its path and its own SHA-256, in path order'),
    files: z
      .array(z.string())
      .describe(
        'the entry file and the local files it pulls in (imports, SQL it reads), transitively; the harness is not followed',
      ),
  })
  .describe('Which code a design or scenario was, so two runs of different code can be told apart');

export const latencySchema = z
  .strictObject({ p50: z.number(), p95: z.number(), p99: z.number(), max: z.number() })
  .describe('Per-request latency in ms (HDR histogram)');

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

const witnessLineSchema = z.strictObject({
  at: z.number().describe("ms since the case's first operation, when this one was invoked"),
  session: z.string(),
  node: z.string().optional(),
  call: z.string().describe('the operation and its arguments'),
  answer: z.string().describe('what it answered (or that it had no answer)'),
  modelAnswers: z
    .string()
    .optional()
    .describe('what the model answers here instead, when this answer alone admits no order'),
  rule: z
    .string()
    .optional()
    .describe(
      "the contract's rule (docs/contract.md, the rules the checker applies) that gives modelAnswers",
    ),
});

const historySchema = z
  .strictObject({
    status: z.enum(['linearizable', 'violation', 'unchecked']),
    operations: count.describe('operations recorded, the final read included'),
    parts: count.describe('independent parts (skus and what joins them; payment keys) checked apart'),
    steps: count.describe('model steps the search took'),
    ms: z.number().nonnegative().describe('how long the check took'),
    reason: z.string().optional().describe('why the history was not checked (never a pass)'),
    summary: z.string().optional().describe('the violation in one line'),
    witness: z
      .array(witnessLineSchema)
      .optional()
      .describe('the smallest set of operations that admits no order'),
  })
  .describe("The case's history checked against the contract's model (docs/history-checker.md)");

const explorationSchema = z
  .strictObject({
    seed: z.number().int(),
    programs: count.describe('programs started (not counting shrink runs), the sweep included'),
    swept: count.describe('of those, the sweep: one operation against another, run first'),
    scope: z
      .strictObject({
        programs: count.describe('programs of the exhaustive scope run, shortest first (not in `programs`)'),
        completeLength: count.describe('the longest length all of whose programs ran (0: none)'),
        batches: count.describe('batches they ran in, side by side on one table set, halving included'),
        broken: count.describe('scope programs that could not be judged even alone'),
        ms: count.describe('wall time of the scope: programs per second = programs / ms × 1000'),
      })
      .optional()
      .describe('the exhaustive scope, run after the sweep (docs/explore.md)'),
    invalid: count.describe(
      'programs whose schedule asked a session for a step while its blocked one waited',
    ),
    broken: count.describe('programs that could not be run to their end'),
    shrinks: count.describe('runs spent shrinking the finding'),
    ms: count,
    spec: z.string().optional().describe("the finding's spec file"),
    reproduced: z
      .strictObject({ failed: count, of: count })
      .optional()
      .describe('replays of the spec file, and how many failed again'),
  })
  .describe('What the explorer ran for this design (docs/explore.md)');

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

const stepResultSchema = z.discriminatedUnion('status', [
  z.strictObject({
    status: z.literal('ok'),
    rows: z.array(z.record(z.string(), z.unknown())).optional(),
    answer: reserveAnswerSchema.optional(),
    paused: z.enum(PAUSE_POINTS).optional(),
    rolledBack: z.literal(true).optional(),
    value: z
      .union([z.boolean(), z.number(), z.enum([...STATUSES, 'NOT_FOUND'])])
      .optional()
      .describe("a lifecycle step's return, or a STATUS / REMAINING step's answer"),
    endedBeforePause: z.literal(true).optional(),
    payment: z
      .strictObject({
        outcome: z.enum(PAYMENT_OUTCOMES),
        response: z
          .strictObject({
            paymentId: z.string(),
            order: z.string(),
            amount: z.number(),
            currency: z.string(),
          })
          .optional(),
      })
      .optional()
      .describe("a PAY step's answer: the payment design's outcome and the response it carries"),
  }),
  z.strictObject({
    status: z.literal('error'),
    sqlstate: z.string().optional(),
    error: z.string(),
    killed: z.literal(true).optional().describe('RESUME KILL ended it at its pause point: an unknown ending'),
  }),
]);

const stepSchema = z
  .strictObject({
    step: z.string(),
    session: z.string(),
    requestKey: z.string().optional(),
    blocked: z.boolean().describe("seen waiting on another session's lock before it completed"),
    retrying: z
      .boolean()
      .describe(
        'seen retrying before it completed (ctx.retried, or its backend in 3+ transactions): reported waiting',
      ),
    result: stepResultSchema,
  })
  .describe('One step of an interleaving, in the order it ran');

const permutationSchema = z.strictObject({
  order: z.string(),
  status: z.enum(['pass', 'fail', 'broken', 'invalid']),
  blocked: z.array(z.string()),
  outcomes: outcomeCountsSchema,
  problems: z.array(z.string()).optional(),
  keptSchema: z.string().optional().describe("the schema holding this order's tables, kept for inspection"),
});

const observedSchema = z.union([
  z.number(),
  z.array(z.number()),
  z.string(),
  z.record(z.string(), z.number()),
]);

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

/** A payment case (payment-case-result.ts): scenario × payment design, judged on the harness's reads. */
const paymentCaseSchema = z
  .strictObject({
    id: z.string().describe('`<scenario>/<design>`'),
    contract: z.literal('payment'),
    scenario: z.string(),
    strategy: z.string().describe('the payment design'),
    expect: z.enum(['hold', 'violate']),
    status: z.enum(['pass', 'fail', 'n/a', 'broken']),
    outcomes: outcomeCountsSchema.describe(
      'CREATED, REUSED, MISMATCH, … and ROLLED_BACK / INDETERMINATE for a killed worker',
    ),
    counts: z
      .strictObject({ payments: count, outbox: count })
      .optional()
      .describe("payment and outbox rows over the keys the case sent, from the harness's own reads"),
    observations: z.record(z.string(), observedSchema).optional(),
    history: historySchema.optional().describe("the case's pays and reads checked against the payment model"),
    steps: z.array(stepSchema).optional().describe("a payment spec's recorded steps"),
    permutations: z
      .array(permutationSchema)
      .optional()
      .describe('`run --permutations all`: every order of the spec, the listed one first'),
    fired: z.array(z.enum(PAYMENT_CHECKS)).optional(),
    problems: z.array(z.string()).optional(),
    boundary: z.string(),
    reason: z.string().optional().describe('why the case is n/a'),
    keptSchema: z
      .string()
      .optional()
      .describe("the schema holding a failed or broken case's tables (or every case's with --keep)"),
  })
  .describe('One payment case');

const paymentBoundaryRowSchema = z.strictObject({
  strategy: z.string(),
  expect: z.enum(['hold', 'violate']),
  guarantee: z.string(),
  shows: z.string().describe('what the scenarios held, or which check caught the control'),
  shownBy: z.string(),
});

export const reportSchema = z
  .strictObject({
    ok: z.boolean().describe('every case met its expectation (and, with --require-coverage, was covered)'),
    generatedAt: z.iso.datetime(),
    environment: environmentSchema,
    configuration: configurationSchema.optional(),
    sources: z
      .array(sourceEntrySchema)
      .optional()
      .describe(
        'every design and scenario file the run ran, with its SHA-256 (absent in reports written before it was recorded)',
      ),
    cases: z.array(caseResultSchema),
    boundary: z.array(boundaryRowSchema),
    coverage: z.array(coverageRowSchema),
    isolation: z.array(isolationRowSchema).describe('design × isolation level, with --isolation'),
    versions: z
      .array(versionRowSchema)
      .describe('design × PostgreSQL version, with several --postgres; empty for a run on one server'),
    uncovered: z.array(z.string()).describe('cases not covered, when --require-coverage made them fatal'),
    unhandledErrors: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(
        'errors nothing handled during the run (a forgotten promise, a throw from a timer): any fails it',
      ),
    payments: z.array(paymentCaseSchema).describe("the payment contract's cases (docs/contract.md#payments)"),
    paymentBoundary: z.array(paymentBoundaryRowSchema).describe('one row per payment design'),
    target: targetSchema.optional().describe('run --target: the black box the run drove over HTTP'),
  })
  .meta({ title: 'reservebench run report', description: 'report.json of `reservebench run`' });

export type Report = z.infer<typeof reportSchema>;

/** The report, once its JSON (as written) matched the schema; throws naming the first flaw. */
export function checkedReport(report: Report): Report {
  const written: unknown = JSON.parse(JSON.stringify(report));
  const parsed = reportSchema.safeParse(written);
  if (parsed.success) return report;
  const issue = parsed.error.issues[0];
  throw new Error(
    `the report does not match its schema (harness/report/report-schema.ts) at ${issue?.path.join('.') || 'the document'}: ${issue?.message ?? 'invalid'}`,
  );
}

/** The JSON Schema of report.json (docs/report.schema.json). */
export function reportJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(reportSchema, { target: 'draft-2020-12' });
}
