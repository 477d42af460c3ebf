/**
 * The functions a design in SQL defines for the contract's operations, found in its text: which optional
 * operations it has decides which ones the adapter implements (so a scenario that needs a missing one is
 * not covered, as for a module), and every pause point it declares must be passed by some function body.
 * The server checks the signatures when the design is installed once before the cases (sql-design-check.ts).
 */
import type { PausingOperation } from '../../../../strategies/contract.ts';
import { Errors } from '../../../errors.ts';
import type { SqlDesignDeclaration } from './sql-design-header.ts';

/** Per function: its argument types (as to_regprocedure reads them), its result, whether it is required. */
export const SQL_FUNCTIONS = {
  load_stock: { args: 'text, integer', result: 'void', required: true },
  reserve: { args: 'text, text, text, integer', result: 'TABLE(outcome text, status text)', required: true },
  status: { args: 'text', result: 'text', required: true },
  remaining: { args: 'text', result: 'integer', required: true },
  audit: { args: '', result: 'jsonb', required: true },
  confirm: { args: 'text', result: 'boolean', required: false },
  release: { args: 'text', result: 'boolean', required: false },
  expire: { args: '', result: 'integer', required: false },
  backdate: { args: 'text[]', result: 'void', required: false },
  disable: { args: 'text', result: 'boolean', required: false },
} as const;
export type SqlFunction = keyof typeof SQL_FUNCTIONS;

const FUNCTION_NAMES = Object.keys(SQL_FUNCTIONS) as SqlFunction[];

/** Line comments out, line breaks kept, so positions still give line numbers. */
function withoutComments(text: string): string {
  return text.replace(/--[^\n]*/g, (comment) => ' '.repeat(comment.length));
}

const lineAt = (text: string, index: number) => text.slice(0, index).split('\n').length;

/** `CREATE [OR REPLACE] FUNCTION name(` anywhere in the file: the contract functions it defines, by line. */
function definedFunctions(code: string): Map<SqlFunction, number> {
  const defined = new Map<SqlFunction, number>();
  for (const match of code.matchAll(/\bcreate\s+(?:or\s+replace\s+)?function\s+"?(\w+)"?\s*\(/gi)) {
    const name = match[1]?.toLowerCase() as SqlFunction;
    if (FUNCTION_NAMES.includes(name) && !defined.has(name)) defined.set(name, lineAt(code, match.index));
  }
  return defined;
}

/** A `reservebench_pause('point')` call: its point, its line, and the function whose body it is in. */
interface PauseCall {
  point: string;
  line: number;
  /** The name of the last `CREATE FUNCTION` before the call (lower case), or undefined before any. */
  inFunction: string | undefined;
}

/** Every `reservebench_pause('point')` call, in the order of the file. */
function pauseCalls(code: string): PauseCall[] {
  const starts = [...code.matchAll(/\bcreate\s+(?:or\s+replace\s+)?function\s+"?(\w+)"?\s*\(/gi)].map(
    (m) => ({
      at: m.index,
      name: m[1]?.toLowerCase(),
    }),
  );
  return [...code.matchAll(/\breservebench_pause\s*\(\s*'([^']*)'/gi)].map((match) => ({
    point: match[1] ?? '',
    line: lineAt(code, match.index),
    inFunction: starts.filter((s) => s.at < match.index).at(-1)?.name,
  }));
}

/**
 * The contract functions the file defines; a bad-input error, by file and line, when a required one is
 * missing, a pause point is declared for an operation it does not define or passed by no function, or a
 * function passes one the header does not declare.
 */
export function sqlDesignFunctions(
  file: string,
  text: string,
  declaration: SqlDesignDeclaration,
): ReadonlySet<SqlFunction> {
  const code = withoutComments(text);
  const defined = definedFunctions(code);
  const missing = FUNCTION_NAMES.filter((name) => SQL_FUNCTIONS[name].required && !defined.has(name));
  if (missing.length > 0) {
    const signatures = missing.map((name) => `${name}(${SQL_FUNCTIONS[name].args})`).join(', ');
    throw Errors.badInput(`${file}: defines no function ${signatures} (docs/contract.md, a design in SQL)`);
  }
  for (const operation of Object.keys(declaration.pausePoints)) {
    if (!defined.has(operation as PausingOperation)) {
      throw Errors.badInput(
        `${file}: @pausePoints.${operation} declares pause points for ${operation}, which the file does not define`,
      );
    }
  }
  checkPauseCalls(file, declaration.pausePoints, pauseCalls(code));
  return new Set(defined.keys());
}

/**
 * Each pause point passed where the header says: a call in an operation's own body must be declared for
 * that operation, and an operation's declared point must be passed in its own body or in a helper
 * function's (a function that is not one of the contract's, which any operation may call). A body runs
 * from its `CREATE FUNCTION` to the next one.
 */
function checkPauseCalls(
  file: string,
  pausePoints: SqlDesignDeclaration['pausePoints'],
  calls: readonly PauseCall[],
): void {
  const declaredFor = (name: string | undefined): readonly string[] | undefined =>
    name === undefined ? undefined : (pausePoints as Record<string, readonly string[]>)[name];
  const declared = new Set<string>(Object.values(pausePoints).flat());
  const isContract = (name: string | undefined) => FUNCTION_NAMES.includes(name as SqlFunction);
  for (const { point, line, inFunction } of calls) {
    if (!declared.has(point)) {
      throw Errors.badInput(
        `${file}:${line}: reservebench_pause('${point}') is not declared in @pausePoints`,
      );
    }
    if (isContract(inFunction) && !declaredFor(inFunction)?.includes(point)) {
      throw Errors.badInput(
        `${file}:${line}: ${inFunction} passes reservebench_pause('${point}'), which @pausePoints.${inFunction} does not declare`,
      );
    }
  }
  for (const [operation, points] of Object.entries(pausePoints)) {
    for (const point of points) {
      const passed = calls.filter((c) => c.point === point);
      if (passed.length === 0) {
        throw Errors.badInput(
          `${file}: declares pause point ${point}, but no function calls reservebench_pause('${point}')`,
        );
      }
      if (!passed.some((c) => c.inFunction === operation || !isContract(c.inFunction))) {
        throw Errors.badInput(
          `${file}: @pausePoints.${operation} declares ${point}, but ${operation} never calls reservebench_pause('${point}')`,
        );
      }
    }
  }
}
