/**
 * The zod schemas of what every contract's case result holds (case-result.ts): answer counts, a history
 * checked against the contract's model, the steps a spec recorded, every order of them, the figures a
 * scenario observed. Each contract's case schema (harness/contracts/<id>/) is built of these; the report
 * document joins every contract's (harness/report/report-schema.ts).
 */
import { z } from 'zod';

export const count = z.number().int().nonnegative();

/** Answer counts by outcome (`HELD`, `SOLD_OUT`, …, `ROLLED_BACK`, `INDETERMINATE`, `ERROR`); absent means 0. */
export const outcomeCountsSchema = z
  .record(z.string(), count)
  .describe(
    'Answer counts by outcome (HELD, REPLAY, SOLD_OUT, USER_LIMIT, KEY_REUSED, BAD_REQUEST, GAVE_UP, ROLLED_BACK, INDETERMINATE, ERROR); an absent outcome means 0',
  );

export const latencySchema = z
  .strictObject({ p50: z.number(), p95: z.number(), p99: z.number(), max: z.number() })
  .describe('Per-request latency in ms (HDR histogram)');

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

export const historySchema = z
  .strictObject({
    status: z.enum(['linearizable', 'violation', 'unchecked']),
    operations: count.describe('operations recorded, the final read included'),
    parts: count.describe(
      'independent parts (skus and what joins them, keys: as its contract splits them) checked apart',
    ),
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

/**
 * One step of a spec as a case keeps it, its result as the engine recorded it. `answer`: the contract's
 * answer (a reserve's outcome and status, a pay's outcome and response), checked as written and typed
 * `unknown`, as the engine records it; `pausePoints`: where the contract's operations stop; `value`: what
 * its steps return that is no answer (a lifecycle step's return, a read's answer).
 */
export function stepSchemaOf(contract: {
  answer: z.ZodType;
  pausePoints: readonly [string, ...string[]];
  value?: z.ZodType;
}) {
  const result = z.discriminatedUnion('status', [
    z.strictObject({
      status: z.literal('ok'),
      rows: z.array(z.record(z.string(), z.unknown())).optional(),
      answer: (contract.answer as unknown as z.ZodType<unknown>).optional(),
      paused: (z.enum(contract.pausePoints) as unknown as z.ZodString).optional(),
      rolledBack: z.literal(true).optional(),
      value: ((contract.value ?? z.never()) as unknown as z.ZodType<boolean | number | string>).optional(),
      endedBeforePause: z.literal(true).optional(),
    }),
    z.strictObject({
      status: z.literal('error'),
      sqlstate: z.string().optional(),
      error: z.string(),
      killed: z
        .literal(true)
        .optional()
        .describe('RESUME KILL ended it at its pause point: an unknown ending'),
    }),
  ]);
  return z
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
      result,
    })
    .describe('One step of an interleaving, in the order it ran');
}

export const permutationSchema = z.strictObject({
  order: z.string(),
  status: z.enum(['pass', 'fail', 'broken', 'invalid']),
  blocked: z.array(z.string()),
  outcomes: outcomeCountsSchema,
  problems: z.array(z.string()).optional(),
  keptSchema: z.string().optional().describe("the schema holding this order's tables, kept for inspection"),
});

export const observedSchema = z.union([
  z.number(),
  z.array(z.number()),
  z.string(),
  z.record(z.string(), z.number()),
]);

/** What the explorer ran for a design (`explore/<design>`, ExplorationSummary), whatever its contract. */
export const explorationSchema = z
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
