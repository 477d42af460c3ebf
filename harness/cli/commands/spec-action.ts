/** What `reservebench spec` does (its options: spec-options.ts), imported only when it runs. */

import { readFileSync } from 'node:fs';
import { openRunDatabase } from '../../database/database.ts';
import { Errors, EXIT, oneLine } from '../../errors.ts';
import { parseSpec } from '../../interleaving/spec-parser.ts';
import { runSpec } from '../../interleaving/spec-run.ts';
import { unifiedDiff } from '../../interleaving/text-diff.ts';
import { databaseUrlFrom, shown } from '../cli-arguments.ts';
import { SPEC_VERBS } from '../contract-selection.ts';
import type { SpecArgs } from './spec-options.ts';

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
  const spec = parseSpec(readText(file, 'spec'), file, SPEC_VERBS);
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
