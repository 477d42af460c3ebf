/**
 * A contract's design and answer checks, written once: its design schema refined as every design's is (a
 * control names the checks that catch it, knobs come with `configure`), and a value checked against a
 * schema, answered in one line naming every member that is wrong.
 */
import { z } from 'zod';
import {
  checkAgainst,
  controlIssues,
  identityShape,
  knobIssues,
  knobsSchema,
  operation,
} from './strategy-module.ts';

type DesignShape = Parameters<typeof controlIssues>[0] & Parameters<typeof knobIssues>[0];

/**
 * What a contract's design module declares beside its operations and pause points: the contract it
 * implements, its identity, per scenario the contract's `checks` that catch it (a control), and its knobs
 * with how a variant is built from them.
 */
export function declaredDesignShape<C extends string>(contract: string, checks: readonly [C, ...C[]]) {
  return {
    contract: z.literal(contract),
    ...identityShape,
    caughtBy: z.record(z.string(), z.array(z.enum(checks)).min(1)).optional(),
    parameters: knobsSchema,
    configure: operation.optional(),
  };
}

/** The schema, refusing a control without `caughtBy` and knobs without `configure`. */
export function refinedDesignSchema<S extends z.ZodType<DesignShape>>(schema: S) {
  return schema.superRefine((s, ctx) => {
    for (const issue of [...controlIssues(s), ...knobIssues(s)]) ctx.addIssue({ code: 'custom', ...issue });
  });
}

/** The design when `value` is one, otherwise one line naming every member that is wrong. */
export function checkDesignAgainst<D>(
  schema: z.ZodType,
  value: unknown,
  /** The contract's noun: "is not a valid <noun> design". */
  noun: string,
): { design: D } | { problem: string } {
  const checked = checkAgainst(schema, value);
  return 'problem' in checked
    ? { problem: `is not a valid ${noun} design: ${checked.problem}` }
    : { design: value as D };
}

/** What an operation answered, if the harness can record it; otherwise one line on what is wrong. */
export function checkAnswerAgainst<A>(
  schema: z.ZodType,
  answer: unknown,
  /** The operation: "<operation>'s answer". */
  operation: string,
): { answer: A } | { problem: string } {
  const checked = checkAgainst(schema, answer);
  return 'problem' in checked
    ? { problem: `${operation}'s answer: ${checked.problem}` }
    : { answer: answer as A };
}
