/**
 * Issue 27, item 4, without a server: a design in SQL is read from its header and its function names. The
 * shipped designs give the Strategy their header declares; a broken header, a pause point one function
 * call cannot pass, a missing function or a pause point no body passes is one bad-input line naming the
 * file and line (./broken-sql-designs.ts breaks strategies/sql/conditional-update.sql one way per file).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sqlDesign } from '../harness/contracts/reservation/designs/sql-design.ts';
import { EXIT, HarnessError } from '../harness/errors.ts';
import { brokenSqlText, SHIPPED_SQL_DESIGN } from './broken-sql-designs.ts';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const CONDITIONAL_UPDATE = SHIPPED_SQL_DESIGN;

/** The one-line bad-input message `text` is refused with, as `file` (never a design). */
function refusal(file: string, text: string): string {
  try {
    sqlDesign(file, text);
  } catch (error: unknown) {
    if (error instanceof HarnessError && error.exitCode === EXIT.badInput) return error.message;
    throw error;
  }
  throw new Error(`${file} was not refused`);
}

const withLine = (text: string, from: string, to: string) => {
  if (!text.includes(from)) throw new Error(`no "${from}" to replace`);
  return text.replace(from, to);
};

describe('a design in SQL, read without a server', () => {
  it('declares what its header says and implements the operations its file defines', () => {
    const design = sqlDesign(CONDITIONAL_UPDATE, read(CONDITIONAL_UPDATE));
    expect(design).toMatchObject({
      id: 'sql-conditional-update',
      expect: 'hold',
      pausePoints: { reserve: ['after-read', 'before-commit'], expire: ['before-commit'] },
    });
    const operations = ['confirm', 'release', 'expire', 'backdate', 'disable'] as const;
    expect(operations.filter((op) => design[op] !== undefined)).toEqual([
      'confirm',
      'release',
      'expire',
      'backdate',
    ]);
  });

  it('reads a control with the checks that must catch it, and only the operations it has', () => {
    const file = 'strategies/sql/controls/read-then-decrement.sql';
    const control = sqlDesign(file, read(file));
    expect(control).toMatchObject({ expect: 'violate', caughtBy: { contention: ['oversold'] } });
    expect([control.confirm, control.release, control.expire]).toEqual([undefined, undefined, undefined]);
  });

  it.each([
    ['bad-expect', (line: number) => `bad-expect.sql:${line}: @expect Invalid option: expected one of `],
    [
      'bad-pause-point',
      (line: number) =>
        `bad-pause-point.sql:${line}: @pausePoints.expire between-transactions: a design in SQL`,
    ],
    ['missing-function', () => 'missing-function.sql: defines no function remaining(text)'],
  ] as const)(
    'refuses the shipped design broken as %s in one line naming the file and line',
    (name, message) => {
      const { text, line } = brokenSqlText(name);
      expect(refusal(`${name}.sql`, text)).toContain(message(line));
    },
  );

  it('refuses a header that is not one, a tag no design has, a tag given twice and a control without caughtBy', () => {
    const text = read(CONDITIONAL_UPDATE);
    const refused = (changed: string) => refusal('d.sql', changed);
    expect(refused(text.replace(/^-- @.*$/gm, '--'))).toBe(
      'd.sql:1: no header: a design in SQL begins with "-- @id …", "-- @title …" lines (docs/contract.md)',
    );
    expect(refused(withLine(text, '-- @expect hold', '-- @expect hold\n-- @colour blue'))).toMatch(
      /^d\.sql:25: @colour is not a declaration of a design; known: id, title/,
    );
    expect(refused(withLine(text, '-- @expect hold', '-- @expect hold\n-- @expect hold'))).toBe(
      'd.sql:25: @expect is declared twice',
    );
    expect(refused(withLine(text, '-- @title ', '-- @heading '))).toMatch(/^d\.sql:22: @heading is not/);
    expect(refused(withLine(text, '-- @expect hold', '-- @expect violate'))).toBe(
      'd.sql:1: @caughtBy: a negative control (expect: violate) must name, per scenario, the checks that catch it',
    );
    expect(refused(withLine(text, '-- @expect hold', '-- @expect hold\n-- @minPostgres eighteen'))).toBe(
      'd.sql:25: @minPostgres must be "<major> <what the design needs from it>", got "eighteen"',
    );
  });

  it('refuses pause points no function passes, passes no header declares, or for an operation it lacks', () => {
    const text = read(CONDITIONAL_UPDATE);
    const refused = (changed: string) => refusal('d.sql', changed);
    expect(refused(withLine(text, "PERFORM reservebench_pause('after-read');", ''))).toBe(
      "d.sql: declares pause point after-read, but no function calls reservebench_pause('after-read')",
    );
    expect(
      refused(
        withLine(
          text,
          '-- @pausePoints.reserve after-read, before-commit',
          '-- @pausePoints.reserve before-commit',
        ),
      ),
    ).toMatch(/^d\.sql:\d+: reservebench_pause\('after-read'\) is not declared in @pausePoints$/);
    const expireAlsoAfterRead = withLine(
      text,
      '-- @pausePoints.expire before-commit',
      '-- @pausePoints.expire before-commit, after-read',
    );
    expect(
      refused(
        withLine(
          expireAlsoAfterRead,
          '-- @pausePoints.reserve after-read, before-commit',
          '-- @pausePoints.reserve before-commit',
        ),
      ),
    ).toMatch(
      /^d\.sql:\d+: reserve passes reservebench_pause\('after-read'\), which @pausePoints\.reserve does not declare$/,
    );
    expect(refused(expireAlsoAfterRead)).toBe(
      "d.sql: @pausePoints.expire declares after-read, but expire never calls reservebench_pause('after-read')",
    );
    expect(
      refused(withLine(text, '-- @expect hold', '-- @expect hold\n-- @pausePoints.disable before-commit')),
    ).toBe('d.sql: @pausePoints.disable declares pause points for disable, which the file does not define');
  });
});
