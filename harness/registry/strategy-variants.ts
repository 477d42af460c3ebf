/**
 * A design's knobs (Strategy.parameters) as the command line gives them, `--param bucketed.buckets=1,16`,
 * and as every process that loads the design receives them: in the fragment of its module URL
 * (`…/bucketed.ts#buckets=16`). Worker threads and crash children load a design by that URL, so each builds
 * the same variant, and the variant's id (`bucketed[buckets=16]`) keeps its cases and series apart. Every
 * contract's designs declare their knobs the same way and go through the same functions.
 */
import type { StrategyParameter, StrategyRef } from '../../strategies/contract.ts';
import { Errors } from '../errors.ts';

export type KnobValues = Readonly<Record<string, number>>;

/** Per design id, per knob, the values to run (in the order given). */
export type ParamSweep = ReadonlyMap<string, ReadonlyMap<string, readonly number[]>>;

/** `buckets=16` pairs joined by `separator`: `,` in a variant's id, `&` in its URL's fragment. */
const knobText = (values: KnobValues, separator: ',' | '&') =>
  Object.entries(values)
    .map(([knob, value]) => `${knob}=${value}`)
    .join(separator);

export function variantId(id: string, values: KnobValues): string {
  return `${id}[${knobText(values, ',')}]`;
}

/** The module URL and the knob values its fragment carries (none: the design as it is exported). */
export function splitVariantUrl(moduleUrl: string): { base: string; values: KnobValues | undefined } {
  const hash = moduleUrl.indexOf('#');
  if (hash < 0) return { base: moduleUrl, values: undefined };
  const values = Object.fromEntries(
    moduleUrl
      .slice(hash + 1)
      .split('&')
      .map((pair) => pair.split('='))
      .map(([knob, value]) => [knob ?? '', Number(value)]),
  );
  return { base: moduleUrl.slice(0, hash), values };
}

/** What knobs ask of a design, whichever contract it implements. */
export interface Knobbed<D> {
  id: string;
  parameters?: Readonly<Record<string, StrategyParameter>>;
  configure?(values: KnobValues): D;
}

/** The design with these knobs: each declared, a whole number within its bounds; the rest at default. */
export function configured<D extends Knobbed<D>>(strategy: D, given: KnobValues): D {
  const { parameters, configure } = strategy;
  if (!parameters || !configure) throw Errors.badInput(`--param: ${strategy.id} has no knobs`);
  const known = Object.keys(parameters);
  for (const [knob, value] of Object.entries(given)) {
    const declared = parameters[knob];
    if (!declared) {
      throw Errors.badInput(`--param: ${strategy.id} has no knob "${knob}"; its knobs: ${known.join(', ')}`);
    }
    if (!Number.isInteger(value) || value < declared.min || value > declared.max) {
      throw Errors.badInput(
        `--param ${strategy.id}.${knob} must be a whole number from ${declared.min} to ${declared.max}, got ${value}`,
      );
    }
  }
  const values = Object.fromEntries(
    known.map((knob) => [knob, given[knob] ?? parameters[knob]?.default ?? 0]),
  );
  return { ...configure(values), id: variantId(strategy.id, values) };
}

/** `bucketed.buckets=1,16` (repeatable, one knob each): the sweep, every value a whole number. */
export function parseParamSweep(given: readonly string[], label = '--param'): ParamSweep {
  const sweep = new Map<string, Map<string, number[]>>();
  for (const text of given) {
    const match = /^([A-Za-z0-9._-]+)\.([a-z][A-Za-z0-9]*)=([0-9]+(?:,[0-9]+)*)$/.exec(text);
    if (!match) {
      throw Errors.badInput(
        `${label} must be <design>.<knob>=<whole numbers, comma-separated>, got ${JSON.stringify(text)}`,
      );
    }
    const [, design = '', knob = '', values = ''] = match;
    const knobs = sweep.get(design) ?? new Map<string, number[]>();
    if (knobs.has(knob)) throw Errors.badInput(`${label} ${design}.${knob} is given twice`);
    knobs.set(knob, values.split(',').map(Number));
    sweep.set(design, knobs);
  }
  return sweep;
}

/** Every combination of one design's knob values, in the order given. */
function combinations(knobs: ReadonlyMap<string, readonly number[]>): KnobValues[] {
  return [...knobs].reduce<KnobValues[]>(
    (done, [knob, values]) =>
      done.flatMap((partial) => values.map((value) => ({ ...partial, [knob]: value }))),
    [{}],
  );
}

/** A sweep may name only designs the command runs (of either contract). */
export function refuseStraySweep(sweep: ParamSweep, runIds: readonly string[]): void {
  const stray = [...sweep.keys()].find((design) => !runIds.includes(design));
  if (stray !== undefined)
    throw Errors.badInput(`--param names ${JSON.stringify(stray)}, which is not run here`);
}

/**
 * Each design a sweep names replaced by its variants, one per combination, whatever the ref's shape:
 * `design` reads a ref's design, `make` builds a ref from a variant and its module URL.
 */
export function variantsOf<R extends { moduleUrl: string }, D extends Knobbed<D>>(
  refs: readonly R[],
  sweep: ParamSweep,
  design: (ref: R) => D,
  make: (variant: D, moduleUrl: string) => R,
): R[] {
  return refs.flatMap((ref) => {
    const knobs = sweep.get(design(ref).id);
    if (!knobs) return [ref];
    return combinations(knobs).map((values) =>
      make(
        configured(design(ref), values),
        `${splitVariantUrl(ref.moduleUrl).base}#${knobText(values, '&')}`,
      ),
    );
  });
}

/** The strategies (StrategyRef) with the sweep's variants (refuseStraySweep checks what the sweep names). */
export function strategyVariants(refs: readonly StrategyRef[], sweep: ParamSweep): StrategyRef[] {
  return variantsOf(
    refs,
    sweep,
    (r) => r.strategy,
    (strategy, moduleUrl) => ({ strategy, moduleUrl }),
  );
}
