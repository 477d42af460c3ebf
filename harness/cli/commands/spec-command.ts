/**
 * `reservebench spec FILE.spec`: runs a PostgreSQL isolation-tester spec on a fresh run database and
 * prints the tester's output; with `--expected FILE.out` it compares instead and prints a diff when they
 * differ. Exit 0 when the spec ran (failing steps are output, not failures), 1 on a difference or a
 * permutation that cannot go on, 2 on a bad spec.
 */
import { readFileSync } from 'node:fs';
import { openRunDatabase } from '../../database/database.ts';
import { Errors, EXIT, oneLine } from '../../errors.ts';
import { parseSpec } from '../../interleaving/spec-parser.ts';
import { runSpec } from '../../interleaving/spec-run.ts';
import { unifiedDiff } from '../../interleaving/text-diff.ts';
import { databaseUrlFrom, shown } from '../cli-arguments.ts';
import { defineCommand, type ParsedOf, positional } from '../command-definition.ts';
import { text } from '../option-types.ts';
import { databaseOption, timeoutOption } from './shared-options.ts';

const OPTIONS = {
  file: positional('the .spec file', 'required'),
  expected: text('compare the output with this .out file instead; exit 1 with a diff when they differ', {
    form: 'FILE',
    blank: 'must name a file',
  }),
  ...databaseOption(),
  ...timeoutOption('longest a step may neither complete nor block, or stay blocked'),
};

export type SpecArgs = ParsedOf<typeof OPTIONS>;

/** Enough of a diff to see what changed; the rest is counted. */
const DIFF_LINES = 40;

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error: unknown) {
    throw Errors.badInput(`cannot read ${what} ${shown(path)}: ${oneLine(error)}`);
  }
}

export async function specCommand(args: SpecArgs): Promise<number> {
  const timeoutMs = args['timeout-ms'];
  const expectedPath = args.expected;
  const databaseUrl = databaseUrlFrom(args['database-url']);
  const file = args.file ?? '';
  if (file.trim() === '') throw Errors.badInput(`the spec file must be named, got ${shown(file)}`);
  const spec = parseSpec(readText(file, 'spec'), file);
  const strategyStep = spec.sessions
    .flatMap((s) => s.steps)
    .find((s) => !('sql' in s.step || 'waitMs' in s.step));
  if (strategyStep) {
    throw Errors.badInput(
      `${file}:${strategyStep.at.line}:${strategyStep.at.column}: step "${strategyStep.step.name}" needs a strategy; \`reservebench spec\` runs SQL and WAIT steps only`,
    );
  }
  const expected =
    expectedPath === undefined
      ? undefined
      : { path: expectedPath, text: readText(expectedPath, 'expected output') };
  for (const name of spec.unused) process.stderr.write(`reservebench: unused step name: ${name}\n`);

  const db = await openRunDatabase(databaseUrl ? { databaseUrl } : {});
  let output = '';
  try {
    await runSpec(spec, {
      connectionString: db.connectionString,
      timeoutMs,
      write: (text) => {
        if (expected === undefined) process.stdout.write(text);
        else output += text;
      },
      warn: (line) => process.stderr.write(`reservebench: ${line}\n`),
    });
  } finally {
    await db.close({ keep: false });
  }
  if (!expected) return EXIT.ok;
  const diff = unifiedDiff(expected.text, output, {
    expected: expected.path,
    actual: `output of ${file}`,
  });
  if (diff.length === 0) {
    process.stdout.write(`output of ${file} matches ${expected.path}\n`);
    return EXIT.ok;
  }
  const printed = diff.slice(0, DIFF_LINES);
  if (diff.length > printed.length) printed.push(`… ${diff.length - printed.length} more lines of diff`);
  process.stdout.write(`${printed.join('\n')}\n`);
  process.stderr.write(`reservebench: output of ${file} differs from ${expected.path}\n`);
  return EXIT.expectationFailed;
}

export const SPEC = defineCommand({
  name: 'spec',
  describe: "run a PostgreSQL isolation-tester spec on a fresh database and print the tester's output",
  options: OPTIONS,
  run: specCommand,
});
