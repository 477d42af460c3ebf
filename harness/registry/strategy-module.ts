/**
 * The runtime check of a strategy module (built-in or a user's plug-in): one zod schema, so a module that
 * is missing members, names an unknown pause point or check, or declares a control without `caughtBy`
 * is refused when it loads, with one line that names what is wrong, instead of failing mid-run.
 */
import { z } from 'zod';
import {
  CHECKS,
  ISOLATION_LEVELS,
  PAUSE_POINTS,
  PAUSING_OPERATIONS,
  type Strategy,
} from '../../strategies/contract.ts';

const operation = z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', {
  message: 'must be a function',
});

const pausePoints = z
  .partialRecord(z.enum(PAUSING_OPERATIONS), z.array(z.enum(PAUSE_POINTS)))
  .refine((v) => typeof v === 'object' && !Array.isArray(v));

const strategySchema = z
  .object({
    id: z
      .string()
      .min(1)
      .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, . _ - only'),
    title: z.string().min(1),
    guarantee: z.string().min(1),
    expect: z.enum(['hold', 'violate']),
    scenarios: z.array(z.string()).optional(),
    notApplicable: z.string().optional(),
    caughtBy: z.record(z.string(), z.array(z.enum(CHECKS)).min(1)).optional(),
    isolation: z.array(z.enum(ISOLATION_LEVELS)).min(1).optional(),
    pausePoints,
    setup: operation,
    reserve: operation,
    status: operation,
    remaining: operation,
    audit: operation,
    confirm: operation.optional(),
    release: operation.optional(),
    expire: operation.optional(),
    backdate: operation.optional(),
    disable: operation.optional(),
  })
  .superRefine((s, ctx) => {
    if (s.expect === 'violate' && (!s.caughtBy || Object.keys(s.caughtBy).length === 0)) {
      ctx.addIssue({
        code: 'custom',
        path: ['caughtBy'],
        message: 'a negative control (expect: violate) must name, per scenario, the checks that catch it',
      });
    }
    for (const op of PAUSING_OPERATIONS) {
      if (op !== 'reserve' && s.pausePoints[op] && !s[op]) {
        ctx.addIssue({
          code: 'custom',
          path: ['pausePoints', op],
          message: `declares pause points for ${op}, which the strategy does not implement`,
        });
      }
    }
  });

/** The strategy when `value` is one, otherwise one line naming every member that is wrong. */
export function checkStrategy(value: unknown): { strategy: Strategy } | { problem: string } {
  const parsed = strategySchema.safeParse(value);
  if (parsed.success) return { strategy: value as Strategy };
  const problems = parsed.error.issues.map((issue) => {
    const path = issue.path.map(String).join('.') || 'module';
    if (issue.path.length > 0 && valueAt(value, issue.path) === undefined) return `${path} is missing`;
    const received =
      issue.code === 'invalid_value' ? `: got ${JSON.stringify(valueAt(value, issue.path))}` : '';
    return `${path} ${issue.message}${received}`;
  });
  return { problem: problems.join('; ') };
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let here: unknown = value;
  for (const key of path) {
    if (typeof here !== 'object' || here === null) return undefined;
    here = (here as Record<PropertyKey, unknown>)[key];
  }
  return here;
}
