/**
 * How a command of `reservebench` is declared, once: its name, what it does, every option it takes and
 * what it runs. An option is a flag (takes no value), a value (checked by the command, cli-arguments.ts)
 * or a positional word. cli.ts gives yargs exactly these declarations, the flags that refuse a value come
 * from them (argv-values.ts), and the arguments a command's `run` receives are typed from them, so an
 * option exists in one place only.
 */

export interface Flag {
  kind: 'flag';
  describe: string;
}

export interface Value {
  kind: 'value';
  describe: string;
  /** Given more than once (or comma-separated), it is a list; otherwise a second one is refused. */
  repeatable: boolean;
  alias?: string;
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

export const flag = (describe: string): Flag => ({ kind: 'flag', describe });

export const value = (describe: string, more: { repeatable?: boolean; alias?: string } = {}): Value => ({
  kind: 'value',
  describe,
  repeatable: more.repeatable ?? false,
  ...(more.alias ? { alias: more.alias } : {}),
});

/** A word after the command, in the order the options list them (`compare <base> <new>`). */
export const positional = (
  describe: string,
  required: 'required' | 'optional',
  variadic?: 'variadic',
): Positional => ({
  kind: 'positional',
  describe,
  required: required === 'required',
  ...(variadic ? { variadic: true } : {}),
});

type FlagName<O extends Options> = { [K in keyof O]: O[K] extends Flag ? K : never }[keyof O];

/** What `run` receives: a flag as true or false, anything else as the user gave it, unchecked. */
export type ArgsOf<O extends Options> = { [K in FlagName<O>]: boolean } & {
  [K in Exclude<keyof O, FlagName<O>>]?: unknown;
};

export interface CommandDefinition<O extends Options = Options> {
  name: string;
  describe: string;
  options: O;
  /** The exit code (EXIT in errors.ts); bad input throws a HarnessError instead. */
  run(args: ArgsOf<O>): Promise<number>;
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
