/**
 * The value axis of a line chart. Linear from 0 while the values span at most WIDE_SPAN×; past that, when
 * asked, a log axis: on a linear one the fastest series flattens the others against the axis. The log
 * axis runs from the 1-2-5 step at or below the smallest value to the one at or above the largest, so no
 * series lies on the axis line, and ticks on those steps (only the powers of ten, or every few of them,
 * once the steps would crowd).
 */
import { scaleLinear, scaleLog } from 'd3-scale';

export type YScaleMode = 'linear' | 'log-when-wide';

export interface YAxis {
  /** Value → y in px. */
  at: (value: number) => number;
  ticks: number[];
  label: (value: number) => string;
  log: boolean;
}

export const WIDE_SPAN = 10;
/** The least room in px between two tick labels, so that 12 px labels never touch. */
const MIN_TICK_GAP = 18;
const STEPS = [1, 2, 5];

const LOG_LABEL = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 3 });

/** Every 1-2-5 value from one decade below `low` to one above `high`, ascending, with its step. */
function steps125(low: number, high: number): { value: number; step: number }[] {
  const values: { value: number; step: number }[] = [];
  for (let decade = Math.floor(Math.log10(low)) - 1; decade <= Math.ceil(Math.log10(high)) + 1; decade++)
    for (const step of STEPS) values.push({ value: Number((step * 10 ** decade).toPrecision(1)), step });
  return values;
}

function logAxis(min: number, max: number, range: [number, number]): YAxis {
  const candidates = steps125(min, max);
  const low = Math.max(...candidates.filter((c) => c.value <= min).map((c) => c.value));
  const high = Math.min(...candidates.filter((c) => c.value >= max).map((c) => c.value));
  const inside = candidates.filter((c) => c.value >= low && c.value <= high);
  const decades = inside.filter((c) => c.step === 1).map((c) => c.value);
  const pxPerDecade = Math.abs(range[0] - range[1]) / Math.log10(high / low);
  const every = Math.ceil(MIN_TICK_GAP / pxPerDecade);
  const ticks =
    pxPerDecade * Math.log10(2) >= MIN_TICK_GAP
      ? inside.map((c) => c.value)
      : decades.filter((_, i) => i % every === 0);
  const scale = scaleLog().domain([low, high]).range(range);
  return { at: scale, ticks, label: (v) => LOG_LABEL.format(v), log: true };
}

/** The axis for these values over `range` ([bottom, top] in px). */
export function yAxis(values: readonly number[], mode: YScaleMode, range: [number, number]): YAxis {
  const min = Math.min(...values);
  const max = Math.max(...values);
  if (mode === 'log-when-wide' && min > 0 && max / min > WIDE_SPAN) return logAxis(min, max, range);
  const scale = scaleLinear()
    .domain([0, Math.max(1, max)])
    .nice()
    .range(range);
  return { at: scale, ticks: scale.ticks(6), label: scale.tickFormat(6), log: false };
}
