/**
 * The isolation tester's output (isolationtester.c, with result sets as libpq's PQprint prints them:
 * header, aligned, `|` between columns), so a spec's output can be diffed against an expected file the way
 * PostgreSQL's own are.
 */
import type { EngineEvent, Permutation, ResultTable, ServerMessage, Step } from './permutation.ts';

export const specHeader = (sessions: number): string => `Parsed test spec with ${sessions} sessions\n`;

export const permutationHeader = (permutation: Permutation): string =>
  `\nstarting permutation: ${permutation.steps.map((s) => s.name).join(' ')}\n`;

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/** PQprint right-aligns a column whose values all look like numbers: digits, `.`, `E`, `e`, space, `-`,
 * not starting with an exponent and ending in a digit. */
const looksNumeric = (value: string) => /^[0-9.Ee -]*[0-9]$/.test(value) && !/^[Ee]/.test(value);

export function formatTable(table: ResultTable): string {
  if (table.columns.length === 0) return '';
  const numeric = table.columns.map((_, j) =>
    table.rows.every((row) => {
      const value = row[j];
      return value === null || value === undefined || value === '' || looksNumeric(value);
    }),
  );
  // Widths in bytes, as PQprint counts them.
  const widths = table.columns.map((name, j) =>
    Math.max(bytes(name), ...table.rows.map((row) => bytes(row[j] ?? ''))),
  );
  const line = (values: readonly (string | null | undefined)[]) =>
    widths
      .map((width, j) => {
        const value = values[j] ?? '';
        const pad = ' '.repeat(width - bytes(value));
        return numeric[j] ? pad + value : value + pad;
      })
      .join('|');
  const count = table.rows.length;
  return [
    line(table.columns),
    widths.map((w) => '-'.repeat(w)).join('+'),
    ...table.rows.map(line),
    `(${count} row${count === 1 ? '' : 's'})`,
    '',
    '',
  ].join('\n');
}

const message = (m: ServerMessage) => `${m.severity}:  ${m.message}\n`;

/** What the tester prints for one event; `textOf` gives a step's body as the spec wrote it. */
export function formatEvent(
  event: Exclude<EngineEvent, { kind: 'teardown-failed' }>,
  textOf: (step: Step) => string,
): string {
  switch (event.kind) {
    case 'waiting':
      return `step ${event.step.name}: ${textOf(event.step)} <waiting ...>\n`;
    case 'completed': {
      const head = event.afterWaiting
        ? `step ${event.step.name}: <... completed>\n`
        : `step ${event.step.name}: ${textOf(event.step)}\n`;
      return head + event.tables.map(formatTable).join('') + (event.error ? message(event.error) : '');
    }
    case 'rows':
      return event.tables.map(formatTable).join('');
    case 'notice': {
      const { notice } = event;
      return (
        `${event.session}: ${message(notice)}` +
        (notice.detail ? `DETAIL:  ${notice.detail}\n` : '') +
        (notice.hint ? `HINT:  ${notice.hint}\n` : '')
      );
    }
  }
}
