/**
 * The design as the explorer builds it. A knob may declare the value the explorer uses (`explored`): a knob
 * that only makes the design slower, such as the length of a simulated external call. The explorer decides
 * every order of a program's steps itself, waiting on observed state, so such a knob changes how long a
 * program takes, never which orders are tried — and a design that waits 800 ms inside each call would
 * otherwise make its exhaustive scope take half an hour. The case keeps the design's own id; a design the
 * user already gave knob values (`--param`) is explored as given.
 */
import type { DesignCatalog } from '../contract/contract.ts';
import { splitVariantUrl } from '../registry/strategy-variants.ts';

/** The knobs a design's exploration sets, and their values (none: it is explored as loaded). */
export function exploredKnobs<R>(catalog: DesignCatalog<R>, ref: R): Map<string, number> {
  const { design, moduleUrl } = catalog.info(ref);
  const knobs = new Map<string, number>();
  if (splitVariantUrl(moduleUrl).values !== undefined) return knobs;
  for (const [knob, declared] of Object.entries(design.parameters ?? {}))
    if (declared.explored !== undefined) knobs.set(knob, declared.explored);
  return knobs;
}

/** The design with each knob that declares an `explored` value set to it. */
export function exploredVariant<R>(catalog: DesignCatalog<R>, ref: R): R {
  const knobs = exploredKnobs(catalog, ref);
  if (knobs.size === 0) return ref;
  const id = catalog.info(ref).design.id;
  const values = new Map([...knobs].map(([knob, value]) => [knob, [value]] as const));
  return catalog.withVariants([ref], new Map([[id, values]]))[0] ?? ref;
}
