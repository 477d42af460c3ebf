/**
 * The kinds of value an option takes, each a constructor that declares it once (command-definition.ts
 * says how): a whole number between bounds, one of some choices, a text, a value of a shape of its own
 * (`LIMIT:WAITING`), and a list of any of these. Each reads one value from its text and refuses a bad one
 * with one line that names the option by its label (`--clients`, or `clients in "run.json"`).
 */
import { Errors } from '../errors.ts';
import { shown, wholeNumber } from './cli-arguments.ts';
import type { JsonItem, JsonValue, Relations, Shape, Value } from './command-definition.ts';

interface Common extends Relations {
  /** What leaving it out means when that is no one value: "the fixture's", "one per core". */
  absent?: string;
  alias?: string;
  /** Why it is not written into report.json. */
  unrecorded?: string;
}

/** `default` given: always a value; otherwise the value or undefined. */
type OneShape<S> = S extends { default: unknown } ? 'defaulted' : 'one';

interface Bounds {
  min: number;
  max: number;
}

/** `a, b or c` */
function orList(values: readonly string[]): string {
  return values.length < 2 ? (values[0] ?? '') : `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;
}

function declared<T, S extends Shape>(
  describe: string,
  spec: Common & { default?: JsonValue },
  value: Omit<Value<T, S>, 'kind' | 'describe' | keyof Common | 'default'>,
): Value<T, S> {
  const { absent, alias, unrecorded, needs, excludes } = spec;
  return {
    kind: 'value',
    describe,
    ...value,
    ...(spec.default !== undefined ? { default: spec.default } : {}),
    ...(absent !== undefined ? { absent } : {}),
    ...(alias !== undefined ? { alias } : {}),
    ...(unrecorded !== undefined ? { unrecorded } : {}),
    ...(needs !== undefined ? { needs } : {}),
    ...(excludes !== undefined ? { excludes } : {}),
  };
}

const shapeOf = (spec: { default?: unknown }) => (spec.default !== undefined ? 'defaulted' : 'one');

/** A whole number from `min` to `max`, written in plain decimal (`0x10`, `1e1`, ` 5`, `05` are refused). */
export function integer<S extends Common & Bounds & { default?: number }>(
  describe: string,
  spec: S,
): Value<number, OneShape<S>> {
  return declared(describe, spec, {
    shape: shapeOf(spec) as OneShape<S>,
    form: 'N',
    range: `${spec.min}–${spec.max}`,
    json: 'number',
    read: (text, label) => wholeNumber(text, label, spec.min, spec.max),
  });
}

/** Whole numbers from `min` to `max`, comma-separated or the option repeated. */
export function integers(
  describe: string,
  spec: Common & Bounds & { default?: readonly number[] },
): Value<number, 'list'> {
  return declared(describe, spec, {
    shape: 'list',
    several: 'list',
    form: 'N,N,…',
    range: `${spec.min}–${spec.max}`,
    json: 'number',
    read: (text, label) => wholeNumber(text, label, spec.min, spec.max),
  });
}

interface ChoiceSpec<C extends string> extends Common {
  /** The refusal of a value that is none of them, when it says more than `must be a or b`. */
  refuse?: (label: string, text: string) => string;
  default?: C;
}

function readChoice<C extends string>(values: readonly C[], spec: ChoiceSpec<C>) {
  return (text: string, label: string): C => {
    const choice = values.find((v) => v === text);
    if (choice !== undefined) return choice;
    throw Errors.badInput(
      spec.refuse?.(label, text) ?? `${label} must be ${orList(values)}, got ${shown(text)}`,
    );
  };
}

/** One of `values`, exactly as written (`ON` is not `on`). */
export function choice<C extends string, S extends ChoiceSpec<C>>(
  describe: string,
  values: readonly C[],
  spec: S,
): Value<C, OneShape<S>> {
  return declared(describe, spec, {
    shape: shapeOf(spec) as OneShape<S>,
    form: values.join('|'),
    choices: values,
    json: 'string',
    read: readChoice(values, spec),
  });
}

/** Some of `values`, comma-separated or the option repeated. */
export function choices<C extends string>(
  describe: string,
  values: readonly C[],
  spec: Omit<ChoiceSpec<C>, 'default'> & { default?: readonly C[] },
): Value<C, 'list'> {
  return declared(describe, spec, {
    shape: 'list',
    several: 'list',
    form: `${values.join('|')},…`,
    choices: values,
    json: 'string',
    read: readChoice(values, { ...spec, default: undefined }),
  });
}

interface TextSpec extends Common {
  /** How it is written: `FILE`, `DIR`, `'cmd'`. */
  form: string;
  /** The refusal of a blank value (`must name a file`); absent: a blank value is a value. */
  blank?: string;
  default?: string;
}

/** A text taken as it is: a file, a folder, a command. */
export function text<S extends TextSpec>(describe: string, spec: S): Value<string, OneShape<S>> {
  return declared(describe, spec, {
    shape: shapeOf(spec) as OneShape<S>,
    form: spec.form,
    json: 'string',
    read: (value, label) => {
      if (spec.blank !== undefined && value.trim() === '')
        throw Errors.badInput(`${label} ${spec.blank}, got ${shown(value)}`);
      return value;
    },
  });
}

/** Names or paths, comma-separated or the option repeated. */
export function texts(describe: string, spec: Common & { form: string }): Value<string, 'list'> {
  return declared(describe, spec, {
    shape: 'list',
    several: 'list',
    form: spec.form,
    json: 'string',
    read: (value) => value,
  });
}

interface ParsedSpec<T> extends Common {
  form: string;
  range?: string;
  read: (text: string, label: string) => T;
  default?: string;
  json?: 'number' | 'string';
}

/** A value of a shape of its own (`LIMIT:WAITING`, `I/N`, a URL), read by `read`. */
export function parsed<S extends ParsedSpec<unknown>>(
  describe: string,
  spec: S,
): Value<ReturnType<S['read']>, OneShape<S>> {
  return declared(describe, spec, {
    shape: shapeOf(spec) as OneShape<S>,
    form: spec.form,
    json: spec.json ?? 'string',
    read: spec.read as (text: string, label: string) => ReturnType<S['read']>,
    ...(spec.range !== undefined ? { range: spec.range } : {}),
  });
}

/**
 * Several values of a shape of their own: `list`, comma-separated or repeated; `repeated`, only repeated
 * (each value has commas of its own, as `--param id.knob=1,2` does).
 */
export function parsedList<T>(
  describe: string,
  spec: Omit<ParsedSpec<T>, 'default'> & { several: 'list' | 'repeated'; default?: readonly JsonItem[] },
): Value<T, 'list'> {
  return declared(describe, spec, {
    shape: 'list',
    several: spec.several,
    form: spec.form,
    json: spec.json ?? 'string',
    read: spec.read,
    ...(spec.range !== undefined ? { range: spec.range } : {}),
  });
}
