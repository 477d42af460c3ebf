/** The Markdown of a report's `configuration` (run and bench alike): the options, and how to run it again. */
import type { Configuration } from './configuration-schema.ts';
import { markdownCell } from './markdown-table.ts';

const shownValue = (value: Configuration['options'][string]) =>
  Array.isArray(value) ? value.join(',') : String(value);

export function configurationLines(configuration: Configuration | undefined): string[] {
  if (!configuration) return [];
  return [
    '## Configuration',
    '',
    `Every option given and every default in effect. \`reservebench ${configuration.command} --config report.json\``,
    "(this folder's) runs the same again; options given beside it override it.",
    '',
    '| option | value |',
    '| --- | --- |',
    ...Object.entries(configuration.options).map(
      ([name, value]) => `| \`--${name}\` | ${markdownCell(shownValue(value))} |`,
    ),
    '',
  ];
}
