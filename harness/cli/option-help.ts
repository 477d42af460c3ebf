/**
 * What `--help` and docs/reference.md say of an option, written from its declaration (command-definition.ts)
 * so that neither can drift from the checks: what it takes and between which bounds, its default or what
 * its absence means, and the options it needs or cannot go with.
 */
import type { CommandDefinition, Flag, JsonValue, Value } from './command-definition.ts';

/** `1,4,16` for a list, the value itself otherwise. */
export function shownDefault(value: JsonValue): string {
  return Array.isArray(value) ? value.join(',') : String(value);
}

/** The default, or what absence means; undefined when neither is declared. */
export function defaultOf(option: Flag | Value): string | undefined {
  if (option.kind === 'flag') return undefined;
  return option.default !== undefined ? shownDefault(option.default) : option.absent;
}

/** How the option is written: `N (1–250)`, `on|off`, `a,b,…` (a list, also given more than once). */
export function takesOf(option: Value): string {
  const range = option.range ? ` (${option.range})` : '';
  const several =
    option.several === 'list'
      ? ', comma-separated or repeated'
      : option.several === 'repeated'
        ? ', repeatable'
        : '';
  return `${option.form}${range}${several}`;
}

/** `needs --rate; not with --burst (a burst is one instant, not a window)`, or '' */
export function relationsOf(option: Flag | Value): string {
  const needs = (option.needs ?? []).map(
    (need) =>
      `needs ${need.anyOf.map((name) => `--${name}`).join(' or ')}${need.why ? ` (${need.why})` : ''}`,
  );
  const excludes = Object.entries(option.excludes ?? {}).map(
    ([name, why]) => `not with --${name}${why ? ` (${why})` : ''}`,
  );
  return [...needs, ...excludes].join('; ');
}

/** The description `--help` prints for the option. */
export function helpText(option: Flag | Value): string {
  const bounds =
    option.kind !== 'value'
      ? undefined
      : (option.range ?? (option.choices ? `one of ${option.choices.join(', ')}` : undefined));
  const takes = bounds ? `, ${bounds}` : '';
  const several = option.kind === 'value' && option.several === 'list' ? '; comma-separated or repeated' : '';
  const relations = relationsOf(option);
  return `${option.describe}${takes}${several}${relations ? `; ${relations}` : ''}`;
}

/** The rows of the command's options in docs/reference.md: option, takes, default, meaning. */
export function referenceRows(command: CommandDefinition): string[][] {
  // Only a command that writes report.json (it takes --config) records its options.
  const records = 'config' in command.options;
  return Object.entries(command.options).map(([name, option]) => {
    if (option.kind === 'positional')
      return [
        `${option.required ? `<${name}${option.variadic ? '..' : ''}>` : `[${name}]`}`,
        option.variadic ? 'words' : 'a word',
        option.required ? 'required' : '—',
        option.describe,
      ];
    const relations = relationsOf(option);
    const meaning = `${option.describe}${relations ? `; ${relations}` : ''}${records && option.unrecorded ? ` (not in report.json: ${option.unrecorded})` : ''}`;
    return [
      `--${name}${option.kind === 'value' && option.alias ? `, -${option.alias}` : ''}`,
      option.kind === 'flag' ? 'no value' : takesOf(option),
      defaultOf(option) ?? '—',
      meaning,
    ];
  });
}
