/**
 * The runtime check of a strategy module (built-in or a user's plug-in): one zod schema, so a module that
 * is missing members, names an unknown pause point or check, or declares a control without `caughtBy`
 * is refused when it loads, with one line that names what is wrong, instead of failing mid-run.
 */
import { z } from 'zod';
import {
  CAPABILITIES,
  CHECKS,
  ISOLATION_LEVELS,
  OUTCOMES,
  PAUSE_POINTS,
  PAUSING_OPERATIONS,
  type ReserveResult,
  type Strategy,
} from '../../strategies/contract.ts';

type Issue = { path: PropertyKey[]; message: string };

/** Pause points declared for an operation the strategy does not implement. */
function pausePointIssues(s: {
  pausePoints: Partial<Record<(typeof PAUSING_OPERATIONS)[number], unknown>>;
  [op: string]: unknown;
}): Issue[] {
  return PAUSING_OPERATIONS.filter((op) => op !== 'reserve' && s.pausePoints[op] && !s[op]).map((op) => ({
    path: ['pausePoints', op],
    message: `declares pause points for ${op}, which the strategy does not implement`,
  }));
}

/**
 * Knobs come with the way to build a variant, and each default (and the value the explorer uses, if one is
 * declared) lies within its bounds (either contract).
 */
export function knobIssues(s: {
  parameters?:
    | Record<string, { default: number; min: number; max: number; explored?: number | undefined }>
    | undefined;
  configure?: unknown;
}): Issue[] {
  const issues: Issue[] = [];
  if (Boolean(s.parameters) !== Boolean(s.configure)) {
    issues.push({
      path: [s.parameters ? 'configure' : 'parameters'],
      message: 'parameters and configure come together: the knobs, and how a variant is built from them',
    });
  }
  for (const [knob, p] of Object.entries(s.parameters ?? {})) {
    if (!(p.min <= p.default && p.default <= p.max)) {
      issues.push({
        path: ['parameters', knob],
        message: `default ${p.default} is outside ${p.min}–${p.max}`,
      });
    }
    if (p.explored !== undefined && !(p.min <= p.explored && p.explored <= p.max)) {
      issues.push({
        path: ['parameters', knob],
        message: `explored ${p.explored} is outside ${p.min}–${p.max}`,
      });
    }
  }
  return issues;
}

/** A design's operation (any contract's): a function. */
export const operation = z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', {
  message: 'must be a function',
});

const pausePoints = z
  .partialRecord(z.enum(PAUSING_OPERATIONS), z.array(z.enum(PAUSE_POINTS)))
  .refine((v) => typeof v === 'object' && !Array.isArray(v));

/** What every contract's design declares of itself: its id, what it claims, whether it should hold. */
export const identityShape = {
  id: z
    .string()
    .min(1)
    .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, . _ - only'),
  title: z.string().min(1),
  guarantee: z.string().min(1),
  expect: z.enum(['hold', 'violate']),
  needs: z.array(z.enum(CAPABILITIES)).optional(),
};

/** What a design declares about itself (a module's data members, a SQL design's header). */
const declarationShape = {
  ...identityShape,
  scenarios: z.array(z.string()).optional(),
  notApplicable: z.string().optional(),
  minPostgres: z.strictObject({ major: z.number().int().min(10), needs: z.string().min(1) }).optional(),
  falseSoldOut: z.string().min(1).optional(),
  caughtBy: z.record(z.string(), z.array(z.enum(CHECKS)).min(1)).optional(),
  isolation: z.array(z.enum(ISOLATION_LEVELS)).min(1).optional(),
  pausePoints,
};

/** A negative control names, per scenario, the checks that catch it (any contract's). */
export function controlIssues(s: {
  expect: string;
  caughtBy?: Record<string, unknown> | undefined;
}): Issue[] {
  return s.expect === 'violate' && (!s.caughtBy || Object.keys(s.caughtBy).length === 0)
    ? [
        {
          path: ['caughtBy'],
          message: 'a negative control (expect: violate) must name, per scenario, the checks that catch it',
        },
      ]
    : [];
}

/** A SQL design's header (sql-design-header.ts): the declarations alone, nothing else allowed. */
export const declarationSchema = z.strictObject(declarationShape).superRefine((s, ctx) => {
  for (const issue of controlIssues(s)) ctx.addIssue({ code: 'custom', ...issue });
});

/**
 * A design's knobs (either contract): each named in camelCase, a whole-number default and bounds, and the
 * value the explorer builds the design with where the knob only slows it (harness/explore/explored-variant.ts).
 */
export const knobsSchema = z
  .record(
    z.string().regex(/^[a-z][A-Za-z0-9]*$/, 'a knob is named in camelCase'),
    z.strictObject({
      describe: z.string().min(1),
      default: z.number().int(),
      min: z.number().int(),
      max: z.number().int(),
      explored: z.number().int().optional(),
    }),
  )
  .optional();

/** A retry bound names one of the design's knobs. */
function retryBoundIssues(s: { retryBound?: string | undefined; parameters?: object | undefined }): Issue[] {
  if (s.retryBound === undefined || (s.parameters && s.retryBound in s.parameters)) return [];
  return [{ path: ['retryBound'], message: `names no knob of the design's parameters (${s.retryBound})` }];
}

export const strategySchema = z
  .object({
    ...declarationShape,
    parameters: knobsSchema,
    configure: operation.optional(),
    retryBound: z.string().min(1).optional(),
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
    for (const issue of [
      ...controlIssues(s),
      ...pausePointIssues(s),
      ...knobIssues(s),
      ...retryBoundIssues(s),
    ])
      ctx.addIssue({ code: 'custom', ...issue });
  });

/**
 * The strategy a module exports (its default export, or one named `strategy`), or what is wrong with it
 * as the rest of a sentence that starts with the module's name.
 */
export function strategyFromModule(module: unknown): { strategy: Strategy } | { problem: string } {
  const exported = readSafely(() => {
    const namespace = module as { default?: unknown; strategy?: unknown };
    return namespace.default ?? namespace.strategy;
  });
  if ('problem' in exported) return { problem: `cannot be read: ${exported.problem}` };
  if (exported.value === undefined) {
    return { problem: 'has no default export (a strategy, see strategies/contract.ts)' };
  }
  const checked = checkStrategy(exported.value);
  return 'problem' in checked ? { problem: `is not a valid strategy: ${checked.problem}` } : checked;
}

/**
 * The strategy when `value` is one, otherwise one line naming every member that is wrong. Never throws:
 * a member whose getter throws, or a proxy, is a problem like any other.
 */
export function checkStrategy(value: unknown): { strategy: Strategy } | { problem: string } {
  const checked = checkAgainst(strategySchema, value);
  return 'problem' in checked ? checked : { strategy: value as Strategy };
}

/**
 * Whether `value` passes `schema` (any contract's design), or one line naming every member that
 * is wrong. Never throws.
 */
export function checkAgainst(schema: z.ZodType, value: unknown): { ok: true } | { problem: string } {
  const parsed = readSafely(() => schema.safeParse(value));
  if ('problem' in parsed) return { problem: `module cannot be read: ${parsed.problem}` };
  if (parsed.value.success) return { ok: true };
  const problems = parsed.value.error.issues.map((issue) => {
    const path = issue.path.map(pathSegment).join('.') || 'module';
    const found = readSafely(() => valueAt(value, issue.path));
    const at = 'value' in found ? found.value : undefined;
    if (issue.path.length > 0 && at === undefined) return `${path} is missing`;
    const received = issue.code === 'invalid_value' ? `: got ${shownValue(at)}` : '';
    return `${path} ${issue.message}${received}`;
  });
  return { problem: oneLineText(problems.join('; ')) };
}

/** What reserve answered, if the harness can record it: an outcome of the contract (and a status). */
export function checkAnswer(answer: unknown): { answer: ReserveResult } | { problem: string } {
  const read = readSafely((): { answer: ReserveResult } | { problem: string } => {
    if (typeof answer !== 'object' || answer === null) {
      return { problem: `reserve answered ${shownValue(answer)}` };
    }
    const { outcome, status } = answer as { outcome?: unknown; status?: unknown };
    if (!(OUTCOMES as readonly unknown[]).includes(outcome)) {
      return { problem: `unknown outcome ${shownValue(outcome)}` };
    }
    if (status !== undefined && status !== null && typeof status !== 'string') {
      return { problem: `reserve answered status ${shownValue(status)}` };
    }
    // Only the contract's fields: anything else might not survive the copy to the main thread.
    return { answer: { outcome, ...(status !== undefined ? { status } : {}) } as ReserveResult };
  });
  return 'problem' in read ? { problem: `reserve's answer cannot be read: ${read.problem}` } : read.value;
}

/** A module's getters and proxies run user code: whatever it throws becomes a one-line problem. */
function readSafely<T>(read: () => T): { value: T } | { problem: string } {
  try {
    return { value: read() };
  } catch (error: unknown) {
    let message: string;
    try {
      message = error instanceof Error ? String(error.message) : shownValue(error);
    } catch {
      message = 'an exception that cannot be shown';
    }
    return { problem: oneLineText(message) };
  }
}

/** A member name as written in code: quoted when it is not a plain identifier or index. */
function pathSegment(key: PropertyKey): string {
  const text = String(key);
  return /^[A-Za-z_$][\w$]*$|^\d+$/.test(text) ? text : JSON.stringify(text);
}

/** Any value in a few characters, on one line (JSON where it can be); never throws. */
function shownValue(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'bigint' ? `${value}n` : (JSON.stringify(value) ?? String(value));
  } catch {
    text = `a ${typeof value} that cannot be shown`;
  }
  return oneLineText(text.length > 60 ? `${text.slice(0, 57)}...` : text);
}

function oneLineText(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let here: unknown = value;
  for (const key of path) {
    if (typeof here !== 'object' || here === null) return undefined;
    here = (here as Record<PropertyKey, unknown>)[key];
  }
  return here;
}
