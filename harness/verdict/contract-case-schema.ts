/**
 * The zod schema of one contract's case in report.json and of its boundary rows: the fields every
 * contract's case has, in one order, with the contract's own fields where they stand (its reads before the
 * history, its cluster figures after the checks). Each contract (harness/contracts/<id>/report-schema.ts)
 * names only what differs.
 */
import { type ZodType, z } from 'zod';
import {
  count,
  explorationSchema,
  historySchema,
  outcomeCountsSchema,
  permutationSchema,
} from './case-result-schema.ts';

/** What a contract's case schema differs in. */
export interface ContractCaseSchemaParts<
  Reads extends Record<string, ZodType>,
  Figures extends Record<string, ZodType>,
> {
  contract: string;
  /** The contract's noun: "the <noun> design", "One <noun> case". */
  noun: string;
  outcomes: string;
  /** Fields from the harness's own reads, before the history. */
  reads: Reads;
  history: string;
  step: ZodType;
  /** What a spec's recorded steps are, as the report describes them. */
  steps: string;
  checks: readonly [string, ...string[]];
  /** Fields after the checks that fired (a cluster case's figures). */
  figures: Figures;
}

/** One contract's case: scenario × design, judged on the harness's reads. */
export function contractCaseSchemaOf<
  Contract extends string,
  Checks extends readonly [string, ...string[]],
  Reads extends Record<string, ZodType>,
  Figures extends Record<string, ZodType>,
  Step extends ZodType,
>(parts: ContractCaseSchemaParts<Reads, Figures> & { contract: Contract; checks: Checks; step: Step }) {
  return z
    .strictObject({
      id: z.string().describe('`<scenario>/<design>`'),
      contract: z.literal(parts.contract),
      scenario: z.string(),
      strategy: z.string().describe(`the ${parts.noun} design`),
      expect: z.enum(['hold', 'violate']),
      status: z.enum(['pass', 'fail', 'n/a', 'broken']),
      outcomes: outcomeCountsSchema.describe(parts.outcomes),
      ...parts.reads,
      history: historySchema.optional().describe(parts.history),
      steps: z.array(parts.step).optional().describe(parts.steps),
      permutations: z
        .array(permutationSchema)
        .optional()
        .describe('`run --permutations all`: every order of the spec, the listed one first'),
      fired: z.array(z.enum(parts.checks)).optional(),
      ...parts.figures,
      exploration: explorationSchema.optional(),
      problems: z.array(z.string()).optional(),
      boundary: z.string(),
      reason: z.string().optional().describe('why the case is n/a'),
      durationMs: count.optional().describe('wall time of the whole case in ms'),
      postgres: z.string().optional().describe('the server version the case ran on, with several --postgres'),
      keptSchema: z
        .string()
        .optional()
        .describe("the schema holding a failed or broken case's tables (or every case's with --keep)"),
    })
    .describe(`One ${parts.noun} case`);
}

/** One row of a contract's boundary table: a design, what it guarantees, what showed it. */
export const boundaryRowSchema = z.strictObject({
  strategy: z.string(),
  expect: z.enum(['hold', 'violate']),
  guarantee: z.string(),
  shows: z.string().describe('what the scenarios held, or which check caught the control'),
  shownBy: z.string(),
});
