/**
 * Before any case, each design in SQL is installed once on the run's server, inside a transaction that is
 * rolled back (its schema with it): a syntax error, a function body PostgreSQL refuses or a contract
 * function with the wrong arguments or result is then one line naming the file and line (exit 2), not the
 * same error in every case.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { StrategyRef } from '../../../../strategies/contract.ts';
import { Errors, oneLine } from '../../../errors.ts';
import { isSqlDesignUrl } from '../../../registry/sql-design-url.ts';
import { SQL_FUNCTIONS, type SqlFunction, sqlDesignFunctions } from './sql-design-functions.ts';
import { parseSqlDesignHeader } from './sql-design-header.ts';
import { PAUSE_FUNCTION_SQL } from './sql-pause-barrier.ts';

/** Each defined contract function as the catalog has it: found with its argument types, and its result. */
const SIGNATURES = `SELECT name, pg_get_function_result(to_regprocedure(name || '(' || args || ')')) AS result
  FROM unnest($1::text[], $2::text[]) AS f(name, args)`;

/** Where in the file the server's error points (its `position`, a 1-based character offset), if it does. */
function lineOf(text: string, error: unknown): string {
  const position = Number((error as { position?: string }).position);
  return Number.isInteger(position) && position > 0
    ? `:${text.slice(0, position - 1).split('\n').length}`
    : '';
}

async function checkSignatures(
  admin: pg.ClientBase,
  file: string,
  defined: ReadonlySet<SqlFunction>,
): Promise<void> {
  const names = [...defined];
  const { rows } = await admin.query<{ name: SqlFunction; result: string | null }>(SIGNATURES, [
    names,
    names.map((name) => SQL_FUNCTIONS[name].args),
  ]);
  for (const { name, result } of rows) {
    const wanted = SQL_FUNCTIONS[name];
    if (result === null) {
      throw Errors.badInput(`${file}: ${name} must take (${wanted.args}); no function ${name} takes these`);
    }
    if (result !== wanted.result) {
      throw Errors.badInput(`${file}: ${name}(${wanted.args}) must return ${wanted.result}, not ${result}`);
    }
  }
}

async function checkInstall(admin: pg.ClientBase, fileUrl: string): Promise<void> {
  const file = relative(process.cwd(), fileURLToPath(fileUrl));
  const text = readFileSync(fileURLToPath(fileUrl), 'utf8');
  const defined = sqlDesignFunctions(file, text, parseSqlDesignHeader(file, text));
  const schema = `reservebench_sql_check_${randomBytes(4).toString('hex')}`;
  await admin.query('BEGIN');
  try {
    await admin.query(`CREATE SCHEMA ${pg.escapeIdentifier(schema)}`);
    await admin.query(`SET LOCAL search_path TO ${pg.escapeIdentifier(schema)}`);
    await admin.query(PAUSE_FUNCTION_SQL);
    try {
      await admin.query(text);
    } catch (error: unknown) {
      throw Errors.badInput(`${file}${lineOf(text, error)}: ${oneLine(error)}`);
    }
    await checkSignatures(admin, file, defined);
  } finally {
    await admin.query('ROLLBACK');
  }
}

/** Installs every design in SQL among `refs` and rolls it back; the first that fails is a bad-input error. */
export async function checkSqlDesignsInstall(
  admin: pg.ClientBase,
  refs: readonly StrategyRef[],
): Promise<void> {
  const files = new Set(refs.map((ref) => ref.moduleUrl.split('#')[0] ?? '').filter(isSqlDesignUrl));
  for (const fileUrl of files) await checkInstall(admin, fileUrl);
}
