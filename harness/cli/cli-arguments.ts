/**
 * Checks and conversions of command-line values shared by the commands. Every value is checked before
 * anything starts (no server, no database, nothing written), and a bad one exits 2 with one line naming
 * the option and the value: an empty string, `0x10`, ` 5` or a value given twice is refused, never read
 * as a default or as a number in disguise.
 */
import { accessSync, constants, mkdirSync, mkdtempSync, rmdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { StrategyRef } from '../../strategies/contract.ts';
import { redact } from '../database/database.ts';
import { DEFAULT_DURABILITY, DURABILITIES, type Durability } from '../database/durability.ts';
import { withLibpqSslModes } from '../database/libpq-ssl-modes.ts';
import { POSTGRES_MAJORS, type PostgresMajor } from '../database/postgres-versions.ts';
import { Errors, oneLine } from '../errors.ts';
import { MAX_ADMISSION_LIMIT, MAX_ADMISSION_WAITING, parseAdmission } from '../gate/admission.ts';
import { loadAllBuiltIn, loadStrategy } from '../registry/registry.ts';
import { type ParamSweep, parseParamSweep } from '../registry/strategy-variants.ts';

/** Each client holds its own connection; the embedded server allows 300 and the harness needs a few. */
export const MAX_CLIENTS = 250;
/** A generator's seed: a positive 32-bit integer (`bench --seed`). */
export const MAX_SEED = 2 ** 31 - 1;
export const MAX_STOCK = 1_000_000;
export const MAX_REPEAT = 1000;

/** Plain decimal only: no sign, blanks, exponent, fraction, radix prefix or leading zero. */
const WHOLE_NUMBER = /^(0|[1-9][0-9]*)$/;

/** A value as the user typed it, quoted and escaped so the message stays one line. */
export function shown(value: string): string {
  return JSON.stringify(value);
}

/** The one value of an option, `undefined` when it is absent; yargs makes a repeated option an array. */
export function single(name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) {
    throw Errors.badInput(
      `--${name} is given more than once (${value.map((v) => shown(String(v))).join(', ')})`,
    );
  }
  return String(value);
}

export function boundedInteger(name: string, value: unknown, min: number, max: number): number | undefined {
  const text = single(name, value);
  if (text === undefined) return undefined;
  const n = WHOLE_NUMBER.test(text) ? Number(text) : Number.NaN;
  if (!(n >= min && n <= max)) {
    throw Errors.badInput(`--${name} must be a whole number from ${min} to ${max}, got ${shown(text)}`);
  }
  return n;
}

/**
 * The items of a list option (repeatable, each comma-separated), `[]` when it is absent. Given but empty,
 * or with an empty item, it is refused: `--strategy ""` must not mean "every strategy".
 */
export function list(name: string, values: unknown): string[] {
  if (values === undefined) return [];
  const given = (Array.isArray(values) ? values : [values]).map(String);
  // `--strategy` or `--strategy=` with nothing after it reaches here as an empty array.
  if (given.length === 0) throw Errors.badInput(`--${name} must not be empty, got ""`);
  const items = given.flatMap((value) => {
    if (value.trim() === '') throw Errors.badInput(`--${name} must not be empty, got ${shown(value)}`);
    const parts = value.split(',').map((v) => v.trim());
    if (parts.includes('')) throw Errors.badInput(`--${name} has an empty item in ${shown(value)}`);
    return parts;
  });
  const twice = items.find((item, i) => items.indexOf(item) !== i);
  if (twice !== undefined) throw Errors.badInput(`--${name} names ${shown(twice)} twice`);
  return items;
}

/** `LIMIT:WAITING` for `bench` and `serve`. */
export function admissionFrom(value: unknown): { limit: number; maxWaiting: number } | undefined {
  const text = single('admission', value);
  if (text === undefined) return undefined;
  const gate = parseAdmission(text);
  if (!gate) {
    throw Errors.badInput(
      `--admission must be LIMIT:WAITING (e.g. 4:8), LIMIT 1–${MAX_ADMISSION_LIMIT}, WAITING 0–${MAX_ADMISSION_WAITING}, got ${shown(text)}`,
    );
  }
  return gate;
}

/** `--param <id>.<knob>=v1,v2` (repeatable), as given: each knob's values, per design. */
export function paramSweepFrom(value: unknown): ParamSweep {
  if (value === undefined) return new Map();
  return parseParamSweep((Array.isArray(value) ? value : [value]).map(String));
}

export async function resolveStrategies(names: string[]): Promise<StrategyRef[]> {
  if (names.length === 0) return loadAllBuiltIn();
  const refs = await Promise.all(names.map(loadStrategy));
  const ids = refs.map((r) => r.strategy.id);
  const dup = ids.find((id, i) => ids.indexOf(id) !== i);
  if (dup) throw Errors.badInput(`strategy id "${dup}" is given twice`);
  return refs;
}

function postgresUrl(source: string, value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')) {
    const got = value === '' ? '""' : url ? shown(redact(value)) : 'something that is not a URL';
    throw Errors.badInput(`${source} must be a postgres:// or postgresql:// URL, got ${got}`);
  }
  return withLibpqSslModes(value);
}

/** `bench --durability on,off`: a series per value, in the order given (default on only). */
export function durabilitiesFrom(value: unknown): Durability[] {
  const given = list('durability', value);
  return given.length === 0 ? [DEFAULT_DURABILITY] : given.map((one) => durabilityFrom(one));
}

/** `--durability on|off` (default on): whether every commit of the run waits for its WAL flush. */
export function durabilityFrom(value: unknown): Durability {
  const text = single('durability', value) ?? DEFAULT_DURABILITY;
  const durability = DURABILITIES.find((d) => d === text);
  if (!durability) throw Errors.badInput(`--durability must be on or off, got ${shown(text)}`);
  return durability;
}

/**
 * `--database-url`, else DATABASE_URL, else none (the embedded server). An empty DATABASE_URL counts as
 * unset, as environment variables usually do; an empty `--database-url` was typed, and is refused.
 */
export function databaseUrlFrom(args: { 'database-url'?: unknown }): string | undefined {
  const given = single('database-url', args['database-url']);
  if (given !== undefined) return postgresUrl('--database-url', given);
  const fromEnvironment = process.env.DATABASE_URL;
  return fromEnvironment ? postgresUrl('DATABASE_URL', fromEnvironment) : undefined;
}

/**
 * `--postgres 15` or a list (`15,18`): the embedded server's majors, run one after the other; `[]` when
 * absent (the default major). Refused with a server given by URL: that server is the version it is (a
 * design's minimum is still checked against it).
 */
export function postgresMajorsFrom(value: unknown, databaseUrl: string | undefined): PostgresMajor[] {
  const majors = list('postgres', value).map((text) => {
    const major = POSTGRES_MAJORS.find((m) => String(m) === text);
    if (major === undefined)
      throw Errors.badInput(`--postgres takes majors from ${POSTGRES_MAJORS.join(', ')}, got ${shown(text)}`);
    return major;
  });
  if (majors.length > 0 && databaseUrl !== undefined)
    throw Errors.badInput(
      '--postgres cannot go with --database-url (or DATABASE_URL): that server is the version it is',
    );
  return majors;
}

/** One major at most, for a command that runs on one server (`run` alone takes a list). */
export function onePostgresMajor(
  value: unknown,
  databaseUrl: string | undefined,
  why: string,
): PostgresMajor | undefined {
  const majors = postgresMajorsFrom(value, databaseUrl);
  if (majors.length > 1) throw Errors.badInput(`--postgres takes one major ${why}`);
  return majors[0];
}

/**
 * Makes the reports folder and proves it writable before the run, which would otherwise find out only
 * when it has finished (a file in the way) or never (Node's recursive mkdir spins forever under /proc).
 */
export function reportsFolder(value: unknown): string {
  const text = single('reports', value) ?? 'reports';
  if (text.trim() === '') throw Errors.badInput(`--reports must name a folder, got ${shown(text)}`);
  writableFolder(resolve(text), refusal('reports', text));
  return text;
}

/**
 * `--junit FILE`: a file whose folder is made and proved writable before the run, as the reports folder
 * is, so the results CI reads are never lost at the end of a long run. The file itself is written last.
 */
export function junitFile(value: unknown): string | undefined {
  const text = single('junit', value);
  if (text === undefined) return undefined;
  if (text.trim() === '') throw Errors.badInput(`--junit must name a file, got ${shown(text)}`);
  const refuse = refusal('junit', text);
  if (kindOf(resolve(text)) === 'folder') throw refuse('it is a folder');
  writableFolder(dirname(resolve(text)), refuse);
  return text;
}

const refusal = (name: string, text: string) => (reason: string) =>
  Errors.badInput(`--${name} ${shown(text)} cannot be used: ${reason.replace(/\s+/g, ' ')}`);

/**
 * Makes `folder` and proves it writable. Missing folders are made one level at a time (a recursive mkdir
 * spins forever under /proc). A probe folder is made and removed again, since as root the permission bits
 * alone say nothing.
 */
function writableFolder(folder: string, refuse: (reason: string) => Error): void {
  const missing: string[] = [];
  let existing = folder;
  for (;;) {
    const kind = kindOf(existing);
    if (kind === 'folder') break;
    if (kind === 'other') throw refuse(`${shown(existing)} is not a folder`);
    missing.unshift(existing);
    const parent = dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  for (const path of missing) {
    try {
      mkdirSync(path);
    } catch (error: unknown) {
      throw refuse(`cannot create ${shown(path)}: ${oneLine(error)}`);
    }
  }
  try {
    accessSync(folder, constants.W_OK);
    rmdirSync(mkdtempSync(join(folder, '.reservebench-probe-')));
  } catch (error: unknown) {
    throw refuse(`cannot write in it: ${oneLine(error)}`);
  }
}

function kindOf(path: string): 'folder' | 'other' | 'missing' {
  try {
    return statSync(path).isDirectory() ? 'folder' : 'other';
  } catch {
    return 'missing';
  }
}

/** A file the command reads: when given, it must name something. */
export function fileArgument(name: string, value: unknown): string | undefined {
  const text = single(name, value);
  if (text !== undefined && text.trim() === '') {
    throw Errors.badInput(`--${name} must name a file, got ${shown(text)}`);
  }
  return text;
}
