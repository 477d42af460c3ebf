/**
 * Options several commands take, declared once: the database and its major, where reports go, JUnit,
 * admission, and the timeout every command that waits on sessions has (its default is the command's own).
 */
import { DEFAULT_DURABILITY, DURABILITIES } from '../../database/durability.ts';
import { DEFAULT_POSTGRES, POSTGRES_MAJORS } from '../../database/postgres-versions.ts';
import { Errors } from '../../errors.ts';
import { MAX_ADMISSION_LIMIT, MAX_ADMISSION_WAITING } from '../../gate/admission.ts';
import { parseParamSweep } from '../../registry/strategy-variants.ts';
import { postgresUrl, readAdmission, readPostgresMajor } from '../cli-arguments.ts';
import { flag } from '../command-definition.ts';
import { choice, integer, parsed, parsedList, text } from '../option-types.ts';

/** The longest any one wait may be told to last: ten minutes. */
export const MAX_TIMEOUT_MS = 600_000;
export const DEFAULT_TIMEOUT_MS = 60_000;

export function databaseOption(
  describe = 'PostgreSQL server to use instead of the embedded one',
  more: { excludes?: Record<string, string> } = {},
) {
  return {
    'database-url': parsed(describe, {
      ...more,
      form: 'URL',
      absent: 'DATABASE_URL, else the embedded server',
      read: (value: string, label: string) => postgresUrl(label, value),
      unrecorded: 'its password; give it again, or DATABASE_URL',
    }),
  };
}

export function reportsOption(written: string) {
  return {
    reports: text(`folder for ${written}; made and proved writable before anything runs`, {
      form: 'DIR',
      blank: 'must name a folder',
      default: 'reports',
    }),
  };
}

/** The output and database options `run` and `bench` share. */
export function reportOptions(written: string) {
  return {
    json: flag('print the JSON report on stdout, no tables'),
    ...databaseOption(),
    ...reportsOption(written),
  };
}

/** `--junit FILE` of `run` and `compare`: what one test case is, in the command's own words. */
export function junitOption(testCase: string) {
  return {
    junit: text(`write the results as JUnit XML to FILE, ${testCase}; written whatever the verdict`, {
      form: 'FILE',
      blank: 'must name a file',
    }),
  };
}

/** `--timeout-ms`: what it bounds, in the command's words, and its default. */
export function timeoutOption(bounds: string, defaultMs = DEFAULT_TIMEOUT_MS) {
  return {
    'timeout-ms': integer(bounds, { min: 100, max: MAX_TIMEOUT_MS, default: defaultMs }),
  };
}

/** `--admission LIMIT:WAITING` of `bench` and `serve`. */
export function admissionOption<S extends { default?: string; excludes?: Record<string, string> }>(
  describe: string,
  more: S,
) {
  return {
    admission: parsed(describe, {
      form: 'LIMIT:WAITING',
      range: `LIMIT 1–${MAX_ADMISSION_LIMIT}, WAITING 0–${MAX_ADMISSION_WAITING}`,
      read: readAdmission,
      ...more,
    }),
  };
}

/** `--postgres`: the embedded server's majors (a command on one server takes one: onePostgresMajor). */
export function postgresOption(describe: string, more: { excludes?: Record<string, string> } = {}) {
  return {
    postgres: parsedList(describe, {
      ...more,
      form: POSTGRES_MAJORS.join('|'),
      several: 'list',
      json: 'number',
      absent: String(DEFAULT_POSTGRES),
      read: readPostgresMajor,
    }),
  };
}

/** `--durability on|off` of a command on one setting. */
export function durabilityOption(describe: string, more: { excludes?: Record<string, string> } = {}) {
  return { durability: choice(describe, DURABILITIES, { default: DEFAULT_DURABILITY, ...more }) };
}

/** `--param <id>.<knob>=v1,v2,…` (repeated, each with commas of its own); parseParamSweep reads them all. */
export function paramOption(describe: string, more: { excludes?: Record<string, string> } = {}) {
  return {
    param: parsedList(describe, {
      form: 'ID.KNOB=N,N,…',
      several: 'repeated',
      read: (value: string, label: string) => {
        parseParamSweep([value], label);
        return value;
      },
      ...more,
    }),
  };
}

/** `--config FILE` of `run` and `bench`: a report.json, or options by name, run again (config-file.ts). */
export function configOption(command: string) {
  return {
    config: text(
      `run again what a report.json of ${command} records (its configuration), or a JSON object of options by name; options given beside it override it`,
      { form: 'FILE', blank: 'must name a file', unrecorded: 'the options it gave are' },
    ),
  };
}

/**
 * `--strategy` of a command that runs one design: a blank value or a list (`a,b`) is refused with the
 * command's own words (`refuse`, given how many it names) rather than read as a module path.
 */
export function oneStrategyOption<M extends { default?: string; absent?: string }>(
  describe: string,
  refuse: (label: string, text: string, count: number) => string,
  more: M,
) {
  return {
    strategy: parsed(describe, {
      form: 'ID|PATH',
      ...more,
      read: (text: string, label: string) => {
        const count = text.trim() === '' ? 0 : text.split(',').length;
        if (count !== 1) throw Errors.badInput(refuse(label, text, count));
        return text;
      },
    }),
  };
}
