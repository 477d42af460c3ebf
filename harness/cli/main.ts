/**
 * The command line as a function: `main(argv)` parses and runs one command and returns its exit code, and
 * `failureLine` is the one line and the code a failure of it ends with (see EXIT in errors.ts). Each
 * command declares its own options (commands/*, command-definition.ts); this file gives them to yargs, and
 * what yargs read to resolve-options.ts.
 * cli.ts is the process around it: it owns the exit.
 */

import yargs, { type Argv } from 'yargs';
import { Errors, EXIT, HarnessError, oneLine } from '../errors.ts';
import { attachDashValues } from './argv-values.ts';
import { shown } from './cli-arguments.ts';
import { type CommandDefinition, flagNames, usageOf } from './command-definition.ts';
import { COMMANDS } from './commands/index.ts';
import { defaultOf, helpText } from './option-help.ts';
import { resolveOptions } from './resolve-options.ts';

/** Control characters (a newline inside a value) escaped, so every message stays on its one line. */
function printable(message: string): string {
  return message.replace(
    /[\p{Cc}\p{Zl}\p{Zp}]/gu,
    (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  );
}

/** The names that take no value: every command's flags, and yargs's own --help. */
const FLAGS = new Set(['help', ...flagNames(COMMANDS)]);

/**
 * The command's options as yargs options: a flag is a boolean, anything else text, each read and checked
 * from its declaration afterwards (resolve-options.ts). No default is given to yargs, so an option left
 * out is told from one given (`--keep=false` overrides a config file's `keep: true`).
 */
function declareOptions(y: Argv, command: CommandDefinition): Argv {
  for (const [name, option] of Object.entries(command.options)) {
    if (option.kind === 'positional') {
      y.positional(name, {
        type: 'string',
        describe: option.describe,
        ...(option.required ? { demandOption: true } : {}),
        ...(option.variadic ? { array: true } : {}),
      });
      continue;
    }
    const shownDefault = defaultOf(option);
    y.option(name, {
      type: option.kind === 'flag' ? 'boolean' : 'string',
      describe: helpText(option),
      ...(shownDefault !== undefined ? { defaultDescription: shownDefault } : {}),
      ...(option.kind === 'value' && option.several ? { array: true } : {}),
      ...(option.kind === 'value' && option.alias ? { alias: option.alias } : {}),
    });
  }
  return y;
}

export async function main(argv: string[]): Promise<number> {
  const command = argv[0];
  const names = COMMANDS.map((c) => c.name);
  if (command !== undefined && !command.startsWith('-') && !names.includes(command)) {
    throw Errors.badInput(`unknown command ${shown(command)}; choose one of: ${names.join(', ')}`);
  }
  let exitCode: number = EXIT.ok;
  const cli = yargs(attachDashValues(argv, FLAGS))
    // `--stock.x 5` would otherwise make --stock an object instead of an unknown option.
    .parserConfiguration({ 'dot-notation': false })
    // strict() checks options only: words after `--` would otherwise be dropped without a word.
    .middleware((args) => {
      const extra = args._.slice(1);
      if (extra.length > 0) throw Errors.badInput(`unexpected argument ${shown(String(extra[0]))}`);
    })
    .scriptName('reservebench')
    .usage('$0 <command> [options]');
  for (const definition of COMMANDS) {
    cli.command(
      usageOf(definition),
      definition.describe,
      (y) => declareOptions(y, definition),
      async (args) => {
        exitCode = await runWith(definition, args);
      },
    );
  }
  await cli
    .demandCommand(1, `name a command: ${names.slice(0, -1).join(', ')} or ${names.at(-1)}`)
    .strict()
    .help()
    .version(false)
    .fail((message, error) => {
      if (error) throw error;
      throw Errors.badInput(message);
    })
    .parseAsync();
  return exitCode;
}

/** A command run with its options as yargs hands them over (by their declared names): checked, then run. */
export async function runWith(
  definition: CommandDefinition,
  args: Readonly<Record<string, unknown>>,
): Promise<number> {
  const { values, context } = resolveOptions(definition, args);
  return definition.run(values, context);
}

/** The line a failure prints on stderr, and the code the process exits with. */
export function failureLine(error: unknown): { line: string; exitCode: number } {
  if (error instanceof HarnessError)
    return { line: `reservebench: ${printable(error.message)}\n`, exitCode: error.exitCode };
  return {
    line: `reservebench: unexpected error: ${printable(oneLine(error))}\n`,
    exitCode: EXIT.expectationFailed,
  };
}
