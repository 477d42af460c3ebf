/**
 * `--config FILE`: a run's options read from JSON — a report.json (its `configuration`, what the run it
 * describes resolved to), that configuration on its own (`{ command, options }`), or a plain object of
 * options by their names (`{ "strategy": ["hot-row"], "clients": 20 }`). The options the command line
 * gives override the file's. A file that cannot be read, is not JSON, is of another command or names an
 * option the command does not have is refused with one line naming the file (exit 2); each value is
 * checked as the option's own value is (resolve-options.ts). A relative design module path the file names
 * is the file's: it is read against the file's folder, as a tsconfig's paths are, not against the folder
 * the command runs in.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { Errors, oneLine } from '../errors.ts';
import { looksLikePath } from '../registry/looks-like-path.ts';
import { shown } from './cli-arguments.ts';

export interface ConfigFile {
  path: string;
  /** The options by name, as the file holds them. */
  options: Readonly<Record<string, unknown>>;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function parseJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error: unknown) {
    throw Errors.badInput(`--config ${shown(path)} cannot be read: ${oneLine(error)}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error: unknown) {
    throw Errors.badInput(`--config ${shown(path)} is not JSON: ${oneLine(error)}`);
  }
}

/** The options a document holds: a report's configuration, a configuration, or options by name. */
function optionsIn(document: unknown, path: string, command: string): unknown {
  const where = `--config ${shown(path)}`;
  if (!isObject(document))
    throw Errors.badInput(`${where} must hold a JSON object (a report.json, or options by name)`);
  const isReport = 'generatedAt' in document && 'environment' in document;
  if (isReport && !('configuration' in document))
    throw Errors.badInput(`${where} is a report written before reports recorded their configuration`);
  const configuration = isReport ? document.configuration : document;
  if (!isObject(configuration) || !('command' in configuration && 'options' in configuration))
    return configuration;
  if (configuration.command !== command) {
    throw Errors.badInput(
      `${where} is the configuration of ${shown(String(configuration.command))}; give it to \`reservebench ${String(configuration.command)}\`, not ${command}`,
    );
  }
  return configuration.options;
}

/** Each relative module path among a design option's items (`hot-row,./mine.ts`), against `folder`. */
function designPathsIn(folder: string, given: unknown): unknown {
  const item = (text: string) => (looksLikePath(text) && !isAbsolute(text) ? resolve(folder, text) : text);
  const items = (text: string) => text.split(',').map(item).join(',');
  if (typeof given === 'string') return items(given);
  return Array.isArray(given) ? given.map((one) => (typeof one === 'string' ? items(one) : one)) : given;
}

/**
 * The file's options for `command`, whose options are `names` (`config` itself is no option of a file) and
 * of which `designOptions` name designs by id or module path.
 */
export function readConfigFile(
  path: string,
  command: string,
  names: readonly string[],
  designOptions: readonly string[],
): ConfigFile {
  const options = optionsIn(parseJson(path), path, command);
  if (!isObject(options))
    throw Errors.badInput(`--config ${shown(path)}: its options must be a JSON object of option names`);
  const unknown = Object.keys(options).find((name) => name === 'config' || !names.includes(name));
  if (unknown !== undefined) {
    throw Errors.badInput(
      `--config ${shown(path)}: ${shown(unknown)} is no option of ${command}; \`reservebench ${command} --help\` lists them`,
    );
  }
  const folder = dirname(resolve(path));
  const read = Object.fromEntries(
    Object.entries(options).map(([name, given]) => [
      name,
      designOptions.includes(name) ? designPathsIn(folder, given) : given,
    ]),
  );
  return { path, options: read };
}
