/**
 * A command's options resolved from their declarations (command-definition.ts): each value from the
 * command line, else from the `--config` file, else its default; every one checked before anything starts
 * (exit 2, one line naming the option — and the file, when the file gave it), then the pairs that exclude
 * each other and what each option needs. What they resolved to is the command's configuration, as
 * report.json records it: every option given, and every default in effect; a design's module path as an
 * absolute one, so that `--config report.json` finds it from any folder.
 */
import { isAbsolute, resolve } from 'node:path';
import { Errors } from '../errors.ts';
import { looksLikePath } from '../registry/looks-like-path.ts';
import type { Configuration, ConfigurationValue } from '../report/configuration-schema.ts';
import { listItems, onlyValue, shown } from './cli-arguments.ts';
import type {
  CommandContext,
  CommandDefinition,
  OptionDefinition,
  Options,
  ParsedOf,
  Value,
} from './command-definition.ts';
import { type ConfigFile, readConfigFile } from './config-file.ts';

type Source = 'command line' | 'file' | 'default' | 'absent';

interface Resolved {
  value: unknown;
  source: Source;
  /** As report.json records it: the items given, numbers as numbers. */
  recorded?: ConfigurationValue;
}

const flagLabel = (name: string) => `--${name}`;

/** The texts the command line gave an option, one per time it was given. */
function commandLineTexts(given: unknown): string[] {
  return (Array.isArray(given) ? given : [given]).map(String);
}

/** An option naming designs by id or module path (`ID|PATH`). */
const namesDesigns = (option: OptionDefinition) => option.kind === 'value' && option.form.includes('PATH');

/** The texts a config file gives an option: its JSON value checked against the option's kind. */
function fileTexts(option: Value, label: string, given: unknown): string[] {
  const items = Array.isArray(given) && option.several !== undefined ? given : [given];
  const kind = option.json === 'number' ? 'a number' : 'a string';
  const bad = items.find((item) => typeof item !== option.json);
  if (bad !== undefined || items.length === 0) {
    const expected = option.several !== undefined ? `${kind} or a list of them` : kind;
    throw Errors.badInput(`${label} must be ${expected}, got ${JSON.stringify(given)}`);
  }
  return items.map(String);
}

function defaultTexts(option: Value): string[] | undefined {
  if (option.default === undefined) return undefined;
  return (Array.isArray(option.default) ? option.default : [option.default]).map(String);
}

/** The value of `texts`, read as the option declares; with what report.json records of it. */
function readValue(
  option: Value,
  label: string,
  texts: string[],
): { value: unknown; recorded: ConfigurationValue } {
  const asJson = (text: string) =>
    option.json === 'number'
      ? Number(text)
      : namesDesigns(option) && looksLikePath(text) && !isAbsolute(text)
        ? resolve(text)
        : text;
  if (option.several === 'list') {
    const items = listItems(label, texts);
    return { value: items.map((item) => option.read(item, label)), recorded: items.map(asJson) };
  }
  if (option.several === 'repeated') {
    if (texts.length === 0 || texts.some((t) => t.trim() === ''))
      throw Errors.badInput(`${label} must not be empty, got ""`);
    return { value: texts.map((item) => option.read(item, label)), recorded: texts.map(asJson) };
  }
  const text = onlyValue(label, texts.length === 1 ? texts[0] : texts) ?? '';
  return { value: option.read(text, label), recorded: asJson(text) };
}

function resolveFlag(cli: unknown, file: ConfigFile | undefined, name: string, label: string): Resolved {
  if (cli !== undefined) return { value: cli === true, source: 'command line', recorded: cli === true };
  if (file && name in file.options) {
    const given = file.options[name];
    if (typeof given !== 'boolean')
      throw Errors.badInput(`${label} must be true or false, got ${JSON.stringify(given)}`);
    return { value: given, source: 'file', recorded: given };
  }
  return { value: false, source: 'default', recorded: false };
}

function resolveOne(
  name: string,
  option: OptionDefinition,
  cli: unknown,
  file: ConfigFile | undefined,
): Resolved {
  const fromFile = cli === undefined && file !== undefined && name in file.options;
  const label = fromFile ? `${name} in ${shown(file?.path ?? '')}` : flagLabel(name);
  if (option.kind === 'positional' && option.variadic)
    return { value: cli === undefined ? [] : commandLineTexts(cli), source: 'command line' };
  if (option.kind === 'positional')
    return { value: cli === undefined ? undefined : String(cli), source: 'command line' };
  if (option.kind === 'flag') return resolveFlag(cli, file, name, label);
  const texts =
    cli !== undefined
      ? commandLineTexts(cli)
      : fromFile
        ? fileTexts(option, label, file?.options[name])
        : defaultTexts(option);
  if (texts === undefined) return { value: option.shape === 'list' ? [] : undefined, source: 'absent' };
  const source: Source = cli !== undefined ? 'command line' : fromFile ? 'file' : 'default';
  return { source, ...readValue(option, label, texts) };
}

/** Given on the command line or in the file: a flag when true, not a default. */
const isGiven = (resolved: Resolved | undefined) =>
  resolved !== undefined &&
  (resolved.source === 'command line' || resolved.source === 'file') &&
  resolved.value !== false;

/** The refusal of the first pair that excludes each other, then of the first option missing what it needs. */
function checkRelations(options: Options, resolved: Map<string, Resolved>, label: (n: string) => string) {
  const given = (name: string) => isGiven(resolved.get(name));
  const declared = Object.entries(options).filter(([name]) => given(name));
  for (const [name, option] of declared) {
    if (option.kind === 'positional') continue;
    const clash = Object.entries(option.excludes ?? {}).find(([other]) => given(other));
    if (clash)
      throw Errors.badInput(
        `${label(name)} cannot go with ${label(clash[0])}${clash[1] ? `: ${clash[1]}` : ''}`,
      );
  }
  for (const [name, option] of declared) {
    if (option.kind === 'positional') continue;
    const missing = (option.needs ?? []).find((need) => !need.anyOf.some(given));
    if (missing) {
      const needed = missing.anyOf.map(flagLabel);
      throw Errors.badInput(
        `${label(name)} needs ${needed.slice(0, -1).join(', ')}${needed.length > 1 ? ' or ' : ''}${needed.at(-1)}${missing.why ? ` (${missing.why})` : ''}`,
      );
    }
  }
}

/** Whether an option not given has its default in effect: what it needs is given, nothing it excludes is. */
function inEffect(option: OptionDefinition, given: (name: string) => boolean): boolean {
  if (option.kind === 'positional') return false;
  return (
    (option.needs ?? []).every((need) => need.anyOf.some(given)) &&
    !Object.keys(option.excludes ?? {}).some(given)
  );
}

function configurationOf(command: CommandDefinition, resolved: Map<string, Resolved>): Configuration {
  const given = (name: string) => isGiven(resolved.get(name));
  const options: Configuration['options'] = {};
  for (const [name, option] of Object.entries(command.options)) {
    const one = resolved.get(name);
    if (option.kind === 'positional' || option.unrecorded || one?.recorded === undefined) continue;
    if (given(name) || inEffect(option, given)) options[name] = one.recorded;
  }
  return { command: command.name, options };
}

/** The `--config` file, when the command takes one and it was given. */
function configFileOf(command: CommandDefinition, args: Readonly<Record<string, unknown>>) {
  const option = command.options.config;
  if (option?.kind !== 'value' || args.config === undefined) return undefined;
  const path = option.read(onlyValue('--config', args.config) ?? '', '--config') as string;
  const names = Object.entries(command.options).flatMap(([name, o]) =>
    o.kind === 'positional' ? [] : [name],
  );
  const designOptions = Object.entries(command.options).flatMap(([name, o]) =>
    namesDesigns(o) ? [name] : [],
  );
  return readConfigFile(path, command.name, names, designOptions);
}

/**
 * The command's options from what yargs read (`args`, by their declared names) and its `--config` file:
 * each checked, defaults applied, typed as declared; with the context the command words its own checks in.
 */
export function resolveOptions<O extends Options>(
  command: CommandDefinition<O>,
  args: Readonly<Record<string, unknown>>,
): { values: ParsedOf<O>; context: CommandContext } {
  const file = configFileOf(command as unknown as CommandDefinition, args);
  const resolved = new Map<string, Resolved>();
  for (const [name, option] of Object.entries(command.options)) {
    resolved.set(name, resolveOne(name, option, args[name], name === 'config' ? undefined : file));
  }
  const label = (name: string) =>
    resolved.get(name)?.source === 'file' ? `${name} in ${shown(file?.path ?? '')}` : flagLabel(name);
  checkRelations(command.options, resolved, label);
  const values = Object.fromEntries([...resolved].map(([name, r]) => [name, r.value])) as ParsedOf<O>;
  return {
    values,
    context: {
      label,
      given: (name) => isGiven(resolved.get(name)),
      configuration: configurationOf(command as unknown as CommandDefinition, resolved),
    },
  };
}
