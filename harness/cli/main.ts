/**
 * The command line as a function: `main(argv)` parses and runs one command and returns its exit code, and
 * `failureLine` is the one line and the code a failure of it ends with (see EXIT in errors.ts). Each
 * command declares its own options (commands/*, command-definition.ts); this file gives them to yargs.
 * cli.ts is the process around it: it owns the exit.
 */

import yargs, { type Argv } from 'yargs';
import { Errors, EXIT, HarnessError, oneLine } from '../errors.ts';
import { attachDashValues } from './argv-values.ts';
import { shown } from './cli-arguments.ts';
import { type CommandDefinition, flagNames, usageOf } from './command-definition.ts';
import { COMMANDS } from './commands/index.ts';

/** Control characters (a newline inside a value) escaped, so every message stays on its one line. */
function printable(message: string): string {
  return message.replace(
    /[\p{Cc}\p{Zl}\p{Zp}]/gu,
    (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  );
}

/** The names that take no value: every command's flags, and yargs's own --help. */
const FLAGS = new Set(['help', ...flagNames(COMMANDS)]);

/** The command's options as yargs options: a flag is a boolean (false unless given), anything else text. */
function declareOptions(y: Argv, command: CommandDefinition): Argv {
  for (const [name, option] of Object.entries(command.options)) {
    if (option.kind === 'positional') {
      y.positional(name, {
        type: 'string',
        describe: option.describe,
        ...(option.required ? { demandOption: true } : {}),
        ...(option.variadic ? { array: true } : {}),
      });
    } else if (option.kind === 'flag') {
      y.option(name, { type: 'boolean', default: false, describe: option.describe });
    } else {
      y.option(name, {
        type: 'string',
        describe: option.describe,
        ...(option.repeatable ? { array: true } : {}),
        ...(option.alias ? { alias: option.alias } : {}),
      });
    }
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
        // yargs parsed exactly the options the definition declared.
        exitCode = await definition.run(args as unknown as Parameters<typeof definition.run>[0]);
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

/** The line a failure prints on stderr, and the code the process exits with. */
export function failureLine(error: unknown): { line: string; exitCode: number } {
  if (error instanceof HarnessError)
    return { line: `reservebench: ${printable(error.message)}\n`, exitCode: error.exitCode };
  return {
    line: `reservebench: unexpected error: ${printable(oneLine(error))}\n`,
    exitCode: EXIT.expectationFailed,
  };
}
