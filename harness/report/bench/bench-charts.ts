/**
 * The charts of a bench report, each drawn against what its series vary, so that no chart piles its points
 * on one x value: throughput and p99 against the client count when the closed-loop series ran at two counts
 * or more; against a design knob's values when `--param` swept one (one line per client count, a log axis
 * once the values span 10×: buckets 1 to 256); goodput and p99 against the offered rate for the open model
 * (`--rate`), one line per design; a burst as a timeline (burst-timeline-chart.ts). report.md links each
 * chart and report.html inlines it, in this order.
 */

import type { BenchEntry } from '../../bench/run-bench.ts';
import type { BurstEntry } from '../../bench/run-burst.ts';
import { CLIENT_BOUND_CORES } from '../../bench/saturation.ts';
import type { Interval } from '../../bench/statistics.ts';
import { burstTimelineCharts } from './burst-timeline-chart.ts';
import { type BenchChart, type ChartSeries, type LineChart, renderLineChart } from './charts.ts';
import { openSuffix } from './open-tables.ts';

type Value = (e: BenchEntry) => { y: number; interval: Interval | undefined };

const admissionPart = (e: BenchEntry) => (e.admission ? ` (admission ${e.admission})` : '');
const durabilityPart = (e: BenchEntry) => (e.durability === 'off' ? ' (not durable)' : '');

const seriesName = (e: BenchEntry) => `${e.strategy}${admissionPart(e)}${durabilityPart(e)}${openSuffix(e)}`;

/** Points of the series that passed, each with its 95% interval where there is one; x the client count. */
export function chartSeries(
  bench: readonly BenchEntry[],
  value: Value,
  x: (e: BenchEntry) => number = (e) => e.clients,
  name: (e: BenchEntry) => string = seriesName,
): ChartSeries[] {
  const byName = new Map<string, ChartSeries>();
  for (const e of bench.filter((b) => b.status === 'ok')) {
    const key = name(e);
    const series = byName.get(key) ?? { name: key, points: [] };
    const { y, interval } = value(e);
    series.points.push({ x: x(e), y, ...(interval ? { interval } : {}), hollow: e.saturation.clientBound });
    byName.set(key, series);
  }
  return [...byName.values()];
}

const throughputOf: Value = (e) => ({ y: e.median.throughput, interval: e.ci95?.throughput });
const p99Of: Value = (e) => ({ y: e.median.p99, interval: e.ci95?.p99 });
const distinct = (values: readonly number[]) => new Set(values).size;

/** A log x axis once the values span 10× (and are all above 0); one step per value otherwise. */
function xScaleOf(values: readonly number[]): 'log' | 'point' {
  const low = Math.min(...values);
  return low > 0 && Math.max(...values) / low >= 10 ? 'log' : 'point';
}

function pair(
  file: string,
  what: { x: string; unit: string; xScale: LineChart['xScale'] },
  series: (value: Value) => ChartSeries[],
  title: string,
): BenchChart[] {
  const shared = {
    xLabel: what.x,
    xScale: what.xScale,
    intervalLabel: '95% interval',
    hollowLabel: `client-bound (≥ ${CLIENT_BOUND_CORES} core)`,
    yScale: 'log-when-wide' as const,
  };
  return [
    {
      file: `${file}throughput.svg`,
      alt: `throughput vs ${what.x}`,
      svg: renderLineChart({
        ...shared,
        title: `Throughput vs ${what.x}${title}`,
        yLabel: what.unit,
        series: series(throughputOf),
      }),
    },
    {
      file: `${file}p99.svg`,
      alt: `p99 latency vs ${what.x}`,
      svg: renderLineChart({
        ...shared,
        title: `p99 latency vs ${what.x}${title}`,
        yLabel: 'p99 latency (ms)',
        series: series(p99Of),
      }),
    },
  ];
}

/** Throughput and p99 against the client count, for the closed-loop series, when they ran at two or more. */
function clientCharts(bench: readonly BenchEntry[], unit: string): BenchChart[] {
  const closed = bench.filter((e) => !e.open);
  if (distinct(closed.map((e) => e.clients)) < 2) return [];
  return pair(
    '',
    { x: 'clients', unit, xScale: 'point' },
    (value) => chartSeries(closed, value),
    ' (median of trials)',
  );
}

/** `bucketed[buckets=16]`: the design, its one knob and its value; undefined for anything else. */
function knobOf(strategy: string): { design: string; knob: string; value: number } | undefined {
  const match = /^(.+)\[([^=,\]]+)=([^,\]]+)\]$/.exec(strategy);
  const value = Number(match?.[3]);
  if (!match?.[1] || !match[2] || !Number.isFinite(value)) return undefined;
  return { design: match[1], knob: match[2], value };
}

/** Per design and knob that the series swept over two values or more, throughput and p99 against it. */
function sweepCharts(bench: readonly BenchEntry[], unit: string): BenchChart[] {
  const sweeps = new Map<string, { design: string; knob: string; entries: BenchEntry[] }>();
  for (const e of bench) {
    const knob = knobOf(e.strategy);
    if (!knob) continue;
    const key = `${knob.design}.${knob.knob}`;
    const sweep = sweeps.get(key) ?? { design: knob.design, knob: knob.knob, entries: [] };
    sweep.entries.push(e);
    sweeps.set(key, sweep);
  }
  const knobValue = (e: BenchEntry) => knobOf(e.strategy)?.value ?? 0;
  return [...sweeps.values()]
    .filter((s) => distinct(s.entries.map(knobValue)) >= 2)
    .flatMap(({ design, knob, entries }) =>
      pair(
        `${design}-${knob}-`,
        { x: `${design}.${knob}`, unit, xScale: xScaleOf(entries.map(knobValue)) },
        (value) =>
          chartSeries(
            entries,
            value,
            knobValue,
            (e) => `${e.clients} clients${admissionPart(e)}${durabilityPart(e)}${openSuffix(e)}`,
          ),
        ', one line per client count',
      ),
    );
}

/** Goodput (in the contract's unit) and p99 (from each request's due time) against the offered rate. */
function openCharts(bench: readonly BenchEntry[], unit: string): BenchChart[] {
  const open = bench.filter((e) => e.open);
  const rateOf = (e: BenchEntry) => e.open?.rate ?? 0;
  if (distinct(open.map(rateOf)) < 2) return [];
  const clientsVary = distinct(open.map((e) => e.clients)) > 1;
  const name = (e: BenchEntry) =>
    `${e.strategy}${admissionPart(e)}${durabilityPart(e)}${e.open?.arrivals === 'poisson' ? ' poisson' : ''}${clientsVary ? ` (${e.clients} clients)` : ''}`;
  const shared = {
    xLabel: 'offered rate (requests / s)',
    xScale: xScaleOf(open.map(rateOf)),
    hollowLabel: `client-bound (≥ ${CLIENT_BOUND_CORES} core)`,
    intervalLabel: '95% interval',
    yScale: 'log-when-wide' as const,
  };
  return [
    {
      file: 'open-goodput.svg',
      alt: 'goodput vs offered rate',
      svg: renderLineChart({
        ...shared,
        title: 'Goodput vs offered rate (HELD within the latency limit)',
        yLabel: `goodput (${unit})`,
        series: chartSeries(open, (e) => ({ y: e.open?.goodput ?? 0, interval: undefined }), rateOf, name),
      }),
    },
    {
      file: 'open-p99.svg',
      alt: 'p99 latency vs offered rate',
      svg: renderLineChart({
        ...shared,
        title: 'p99 latency vs offered rate (from the due time)',
        yLabel: 'p99 latency (ms)',
        series: chartSeries(open, p99Of, rateOf, name),
      }),
    },
  ];
}

/** Every chart of a bench report, in the order report.md shows them. */
export function benchCharts(
  bench: readonly BenchEntry[],
  burst: readonly BurstEntry[] | undefined,
  unit: string,
): BenchChart[] {
  if (burst) return burstTimelineCharts(burst);
  return [...clientCharts(bench, unit), ...sweepCharts(bench, unit), ...openCharts(bench, unit)];
}
