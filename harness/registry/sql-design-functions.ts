/**
 * The functions a design in SQL defines for the contract's operations, found in its text: which optional
 * operations it has decides which ones the adapter implements (so a scenario that needs a missing one is
 * not covered, as for a module), and every pause point it declares must be passed by some function body.
 * The server checks the signatures when the design is installed once before the cases (sql-design-check.ts).
 */
import type { PausingOperation } from '../../strategies/contract.ts';
import { Errors } from '../errors.ts';
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

/** `reservebench_pause('point')` calls: the points passed, by the line of their first call. */
function pauseCalls(code: string): Map<string, number> {
  const calls = new Map<string, number>();
  for (const match of code.matchAll(/\breservebench_pause\s*\(\s*'([^']*)'/gi)) {
    const point = match[1] ?? '';
    if (!calls.has(point)) calls.set(point, lineAt(code, match.index));
  }
  return calls;
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
  const declared = new Set<string>();
  for (const [operation, points] of Object.entries(declaration.pausePoints)) {
    if (!defined.has(operation as PausingOperation)) {
      throw Errors.badInput(
        `${file}: @pausePoints.${operation} declares pause points for ${operation}, which the file does not define`,
      );
    }
    for (const point of points) declared.add(point);
  }
  const calls = pauseCalls(code);
  for (const point of declared) {
    if (!calls.has(point)) {
      throw Errors.badInput(
        `${file}: declares pause point ${point}, but no function calls reservebench_pause('${point}')`,
      );
    }
  }
  for (const [point, line] of calls) {
    if (!declared.has(point)) {
      throw Errors.badInput(
        `${file}:${line}: reservebench_pause('${point}') is not declared in @pausePoints`,
      );
    }
  }
  return new Set(defined.keys());
}
