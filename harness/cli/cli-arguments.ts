/**
 * Checks and conversions of option values shared by the commands, each refusal worded with the option's
 * label. Every value is checked before anything starts (no server, no database, nothing written), and a
 * bad one exits 2 with one line naming the option and the value: an empty string, `0x10`, ` 5` or a value
 * given twice is refused, never read as a default or as a number in disguise.
 */
import { accessSync, constants, mkdirSync, mkdtempSync, rmdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { withLibpqSslModes } from '../database/libpq-ssl-modes.ts';
import { POSTGRES_MAJORS, type PostgresMajor } from '../database/postgres-versions.ts';
import { redact } from '../database/redact.ts';
import { Errors, oneLine } from '../errors.ts';
import { MAX_ADMISSION_LIMIT, MAX_ADMISSION_WAITING, parseAdmission } from '../gate/admission.ts';

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

/**
 * The one value of an option, `undefined` when it is absent; yargs makes a repeated option an array. The
 * option is named by its label (`--stock`, or `stock in "run.json"`).
 */
export function onlyValue(label: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) {
    throw Errors.badInput(
      `${label} is given more than once (${value.map((v) => shown(String(v))).join(', ')})`,
    );
  }
  return String(value);
}

/** A plain decimal from `min` to `max`, or a refusal naming the option by `label`. */
export function wholeNumber(text: string, label: string, min: number, max: number): number {
  const n = WHOLE_NUMBER.test(text) ? Number(text) : Number.NaN;
  if (!(n >= min && n <= max)) {
    throw Errors.badInput(`${label} must be a whole number from ${min} to ${max}, got ${shown(text)}`);
  }
  return n;
}

/**
 * The items of a list option from the texts given (one per time it was given, each comma-separated).
 * Given but empty, or with an empty item, it is refused: `--strategy ""` must not mean "every strategy".
 */
export function listItems(label: string, given: readonly string[]): string[] {
  // `--strategy` or `--strategy=` with nothing after it reaches here as an empty array.
  if (given.length === 0) throw Errors.badInput(`${label} must not be empty, got ""`);
  const items = given.flatMap((value) => {
    if (value.trim() === '') throw Errors.badInput(`${label} must not be empty, got ${shown(value)}`);
    const parts = value.split(',').map((v) => v.trim());
    if (parts.includes('')) throw Errors.badInput(`${label} has an empty item in ${shown(value)}`);
    return parts;
  });
  const twice = items.find((item, i) => items.indexOf(item) !== i);
  if (twice !== undefined) throw Errors.badInput(`${label} names ${shown(twice)} twice`);
  return items;
}

/** `LIMIT:WAITING` for `bench` and `serve`. */
export function readAdmission(text: string, label: string): { limit: number; maxWaiting: number } {
  const gate = parseAdmission(text);
  if (!gate) {
    throw Errors.badInput(
      `${label} must be LIMIT:WAITING (e.g. 4:8), LIMIT 1–${MAX_ADMISSION_LIMIT}, WAITING 0–${MAX_ADMISSION_WAITING}, got ${shown(text)}`,
    );
  }
  return gate;
}

/** A postgres:// or postgresql:// URL, its password never shown in the refusal. */
export function postgresUrl(source: string, value: string): string {
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

/**
 * `--database-url` (checked as it was read: postgresUrl), else DATABASE_URL, else none (the embedded
 * server). An empty DATABASE_URL counts as unset, as environment variables usually do; an empty
 * `--database-url` was typed, and is refused.
 */
export function databaseUrlFrom(given: string | undefined): string | undefined {
  if (given !== undefined) return given;
  const fromEnvironment = process.env.DATABASE_URL;
  return fromEnvironment ? postgresUrl('DATABASE_URL', fromEnvironment) : undefined;
}

/** One of the embedded server's majors (`--postgres 15`). */
export function readPostgresMajor(text: string, label: string): PostgresMajor {
  const major = POSTGRES_MAJORS.find((m) => String(m) === text);
  if (major === undefined)
    throw Errors.badInput(`${label} takes majors from ${POSTGRES_MAJORS.join(', ')}, got ${shown(text)}`);
  return major;
}

/**
 * `--postgres 15` or a list (`15,18`): the embedded server's majors, run one after the other; `[]` when
 * absent (the default major). Refused with a server given by URL: that server is the version it is (a
 * design's minimum is still checked against it).
 */
export function postgresMajorsFrom(
  majors: readonly PostgresMajor[],
  databaseUrl: string | undefined,
): PostgresMajor[] {
  if (majors.length > 0 && databaseUrl !== undefined)
    throw Errors.badInput(
      '--postgres cannot go with --database-url (or DATABASE_URL): that server is the version it is',
    );
  return [...majors];
}

/** One major at most, for a command that runs on one server (`run` alone takes a list). */
export function onePostgresMajor(
  value: readonly PostgresMajor[],
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
export function reportsFolder(text: string, label = '--reports'): string {
  writableFolder(resolve(text), refusal(label, text));
  return text;
}

/**
 * `--junit FILE`: a file whose folder is made and proved writable before the run, as the reports folder
 * is, so the results CI reads are never lost at the end of a long run. The file itself is written last.
 */
export function junitFile(text: string, label = '--junit'): string {
  const refuse = refusal(label, text);
  if (kindOf(resolve(text)) === 'folder') throw refuse('it is a folder');
  writableFolder(dirname(resolve(text)), refuse);
  return text;
}

const refusal = (label: string, text: string) => (reason: string) =>
  Errors.badInput(`${label} ${shown(text)} cannot be used: ${reason.replace(/\s+/g, ' ')}`);

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
