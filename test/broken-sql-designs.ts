/**
 * The broken designs in SQL the tests are refused or failed with: strategies/sql/conditional-update.sql
 * with one change each, written at test time from the shipped file, so a fixture never drifts from the
 * design it breaks and a change to that design is tested with its broken twins.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const SHIPPED_SQL_DESIGN = 'strategies/sql/conditional-update.sql';

/** Per broken file, what in the shipped text it replaces and with what (in order, each found once). */
const CHANGES = {
  'bad-expect': [['-- @expect hold', '-- @expect maybe']],
  'bad-pause-point': [
    ['-- @pausePoints.expire before-commit', '-- @pausePoints.expire between-transactions'],
  ],
  'lying-audit': [
    ['-- @id sql-conditional-update', '-- @id sql-lying-audit'],
    ["'available', s.available,", "'available', s.available + 1,"],
  ],
  'missing-function': [[/^-- The counter itself[^\n]*\nCREATE FUNCTION remaining[\s\S]*?\$\$;\n\n/m, '']],
  'syntax-error': [
    ['  SELECT coalesce(sum(n), 0)::int INTO units FROM returned;', '  SELEC coalesce(sum(n), 0)::int'],
  ],
  'wrong-signature': [
    [
      'CREATE FUNCTION remaining(sku text) RETURNS int ',
      'CREATE FUNCTION remaining(sku text) RETURNS bigint ',
    ],
  ],
} satisfies Record<string, [string | RegExp, string][]>;

export type BrokenSqlDesign = keyof typeof CHANGES;

export interface WrittenSql {
  path: string;
  /** The 1-based line of the first change, where a refusal naming a line points. */
  line: number;
}

/** The shipped design's text with `name`'s changes; throws when one no longer finds what it changes. */
export function brokenSqlText(name: BrokenSqlDesign): { text: string; line: number } {
  let text = readFileSync(new URL(`../${SHIPPED_SQL_DESIGN}`, import.meta.url), 'utf8');
  let firstAt = Number.POSITIVE_INFINITY;
  for (const [from, to] of CHANGES[name]) {
    const at = typeof from === 'string' ? text.indexOf(from) : text.search(from);
    if (at < 0) throw new Error(`${SHIPPED_SQL_DESIGN} no longer has what ${name} changes: ${String(from)}`);
    firstAt = Math.min(firstAt, at);
    text = text.replace(from, to);
  }
  return { text, line: text.slice(0, firstAt).split('\n').length };
}

/** Writes `name`.sql into `dir` (created if missing) and says where. */
export function writeBrokenSql(dir: string, name: BrokenSqlDesign): WrittenSql {
  const { text, line } = brokenSqlText(name);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.sql`);
  writeFileSync(path, text);
  return { path, line };
}
