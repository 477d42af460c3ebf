/**
 * How a command of `reservebench` is declared, once: its name, what it does, and every option it takes —
 * what it means, what it takes (a whole number between bounds, one of some choices, a list), its default
 * or what its absence means, and which options it needs or cannot go with. From these declarations yargs
 * reads the command line (main.ts), the values are checked and resolved (resolve-options.ts), `--help` and
 * docs/reference.md list them (option-help.ts), a run's report.json records what they resolved to, and a
 * command's `run` receives the checked values, typed from them. An option exists in one place only.
 *
 * Declaring an option: add it to the command's OPTIONS with a constructor of option-types.ts — `integer`,
 * `integers`, `choice`, `choices`, `text`, `texts`, `parsed` — or `flag`; give its meaning (`describe`,
 * without bounds or default: those are written from the declaration), its `default` or, when absence
 * means no one value, `absent`; name what it `needs` and what it `excludes`, with the reason. Its check
 * (exit 2, one line), its `--help` line, its row in docs/reference.md (`npm run docs`), its place in a
 * `--config` file and in report.json all follow. A check that depends on values (`--seed` needs
 * `--arrivals poisson`) stays in the command, worded with `context.label(name)`.
 */

import type { Configuration } from '../report/configuration-schema.ts';

/** A value as a config file or report.json holds it: a flag's boolean, a number or a string, or a list. */
export type JsonItem = number | string;
export type JsonValue = boolean | JsonItem | readonly JsonItem[];

/** Options one needs: any one of `anyOf` (`--seed` needs `--rate` or `--burst`), with why. */
export interface Need {
  anyOf: readonly string[];
  why?: string;
}

export interface Relations {
  needs?: readonly Need[];
  /** Each option this one cannot go with, and why ('' when it goes without saying). */
  excludes?: Readonly<Record<string, string>>;
}

interface Declared extends Relations {
  describe: string;
  /** Why the value is not written into report.json (a password may be in it); absent: it is. */
  unrecorded?: string;
}

export interface Flag extends Declared {
  kind: 'flag';
}

/**
 * How a value's result is typed: `one` is the value or undefined, `defaulted` always a value, `list` an
 * array (empty when absent and without a default).
 */
export type Shape = 'one' | 'defaulted' | 'list';

export interface Value<T = unknown, S extends Shape = Shape> extends Declared {
  kind: 'value';
  shape: S;
  /** How it is written, for `--help` and the reference: `N`, `on\|off`, `LIMIT:WAITING`, `URL`. */
  form: string;
  /** Its bounds, for `--help` and the reference: `1–250`. */
  range?: string;
  /** The values it may take, when it is one of some (`choice`), for `--help`. */
  choices?: readonly string[];
  /**
   * Several values: `list` given more than once or comma-separated, `repeated` only given more than once
   * (its values have commas of their own). Absent: one value, given once.
   */
  several?: 'list' | 'repeated';
  /** In a config file and report.json: a number or a string (a list: an array of them). */
  json: 'number' | 'string';
  /** The default, as a config file would give it. */
  default?: JsonValue;
  /** What leaving it out means when that is no one value: "the fixture's", "one per core". */
  absent?: string;
  alias?: string;
  /** One value (one item of a list) from its text; throws a bad-input error worded with `label`. */
  read(text: string, label: string): T;
}

export interface Positional {
  kind: 'positional';
  describe: string;
  required: boolean;
  /** The words left, as a list (`report <files..>`); the last positional only. */
  variadic?: boolean;
}

export type OptionDefinition = Flag | Value | Positional;
export type Options = Readonly<Record<string, OptionDefinition>>;

export const flag = (describe: string, more: Relations & { unrecorded?: string } = {}): Flag => ({
  kind: 'flag',
  describe,
  ...more,
});

/** A word after the command, in the order the options list them (`compare <base> <new>`). */
export function positional(describe: string, required: 'required' | 'optional'): Positional;
/** The words left after the command (`report <files..>`). */
export function positional(
  describe: string,
  required: 'required' | 'optional',
  variadic: 'variadic',
): Positional & { variadic: true };
export function positional(
  describe: string,
  required: 'required' | 'optional',
  variadic?: 'variadic',
): Positional {
  return {
    kind: 'positional',
    describe,
    required: required === 'required',
    ...(variadic ? { variadic: true } : {}),
  };
}

type ParsedValue<O> = O extends Flag
  ? boolean
  : O extends Positional
    ? O extends { variadic: true }
      ? string[]
      : string | undefined
    : O extends Value<infer T, infer S>
      ? S extends 'list'
        ? T[]
        : S extends 'defaulted'
          ? T
          : T | undefined
      : never;

/** What `run` receives: every option checked, its default applied, typed from its declaration. */
export type ParsedOf<O extends Options> = { -readonly [K in keyof O]: ParsedValue<O[K]> };

/** What a command knows of its options besides their values. */
export interface CommandContext {
  /** How a message names the option: `--clients`, or `clients in "run.json"` when a config file gave it. */
  label(name: string): string;
  /** Whether the option was given (on the command line or in a config file), not its default. */
  given(name: string): boolean;
  /** What the options resolved to, as report.json records it and `--config` reads it again. */
  configuration: Configuration;
}

export interface CommandDefinition<O extends Options = Options> {
  name: string;
  describe: string;
  options: O;
  /** The exit code (EXIT in errors.ts); bad input throws a HarnessError instead. */
  run(options: ParsedOf<O>, context: CommandContext): Promise<number>;
}

export function defineCommand<O extends Options>(command: CommandDefinition<O>): CommandDefinition<O> {
  return command;
}

/** `spec <file>`, `sql [kept]`: the command and its positionals, as yargs reads them. */
export function usageOf(command: CommandDefinition): string {
  const words = Object.entries(command.options).flatMap(([name, option]) =>
    option.kind === 'positional'
      ? [`${option.required ? '<' : '['}${name}${option.variadic ? '..' : ''}${option.required ? '>' : ']'}`]
      : [],
  );
  return [command.name, ...words].join(' ');
}

const camelCase = (name: string) => name.replace(/-(.)/g, (_, c: string) => c.toUpperCase());

/**
 * Every name a flag of `commands` answers to: as declared (`dry-run`) and as yargs also reads it (`dryRun`).
 * A name is a flag in every command that has it or in none, so the command line can be read before its
 * command is known.
 */
export function flagNames(commands: readonly CommandDefinition[]): Set<string> {
  const flags = new Set<string>();
  const values = new Set<string>();
  for (const { options } of commands) {
    for (const [name, option] of Object.entries(options)) (option.kind === 'flag' ? flags : values).add(name);
  }
  const both = [...flags].find((name) => values.has(name));
  if (both !== undefined) throw new Error(`--${both} is a flag in one command and takes a value in another`);
  return new Set([...flags].flatMap((name) => [name, camelCase(name)]));
}
