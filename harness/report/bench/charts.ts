/**
 * Line charts as standalone SVG (so they render on a code host): one line per series over the x values (the
 * client counts, a knob's values, offered rates, time), with an error bar where a point has an interval and
 * a hollow marker where a point is not to be trusted. d3-scale maps the values (chart-axis.ts: a log axis
 * where a linear one would flatten the slow series), d3-shape draws the lines, chart-style.ts tells the
 * series apart and chart-legend.ts names them.
 */
import { scaleLinear, scaleLog, scalePoint } from 'd3-scale';
import { line } from 'd3-shape';
import { type YAxis, type YScaleMode, yAxis } from './chart-axis.ts';
import { LEGEND_FONT_SIZE, type LegendItem, renderLegend } from './chart-legend.ts';
import { dashAttribute, type SeriesStyle, seriesStyle } from './chart-style.ts';
import { xmlText } from './xml-text.ts';

export interface ChartPoint {
  x: number;
  y: number;
  interval?: { low: number; high: number };
  hollow?: boolean;
}

export interface ChartSeries {
  name: string;
  points: ChartPoint[];
}

export interface LineChart {
  title: string;
  xLabel: string;
  yLabel: string;
  series: ChartSeries[];
  /** `log-when-wide`: a log axis once the values span more than 10×, so the small ones stay readable. */
  yScale?: YScaleMode;
  /**
   * `point` (default): each x value one step apart, a tick each (client counts); `log`: a log axis with a
   * tick at each value (a knob swept 1, 4, 16, 256); `linear`: a linear axis from 0 (time).
   */
  xScale?: 'point' | 'log' | 'linear';
  /** Legend entries for the error bars and the hollow markers, shown when some point has one. */
  intervalLabel?: string;
  hollowLabel?: string;
}

/** A chart as a report holds it: its SVG file beside report.md, linked there with `alt`. */
export interface BenchChart {
  file: string;
  alt: string;
  svg: string;
}

/** Where the plot is drawn; the legend goes to its right and the SVG grows to hold the legend. */
export const PLOT = { left: 70, top: 40, width: 450, height: 310 } as const;
const MIN_WIDTH = 720;
const MIN_HEIGHT = 400;
const LEGEND_GAP = 15;
const PAD = 10;
const CAP = 4;
/**
 * Series sharing a client count are drawn side by side, this far apart, so their error bars stay apart;
 * closer for many series, so that together they take at most DODGE_SHARE of the room between two counts
 * and the outermost stay inside the plot (scalePoint's padding keeps that much room at either end).
 */
const DODGE = 5;
const DODGE_SHARE = 0.5;

const PLOT_RIGHT = PLOT.left + PLOT.width;
const PLOT_BOTTOM = PLOT.top + PLOT.height;

interface XAxis {
  at: (value: number) => number | undefined;
  ticks: number[];
  /** How far apart series sharing an x value are drawn (0 on a numeric axis: a point is where it is). */
  dodge: number;
}

/** Room kept at either end of a numeric x axis, so the first and last markers stay off the frame. */
const X_INSET = 20;
const X_TICKS = 8;

function xAxis(xs: readonly number[], chart: LineChart): XAxis {
  const range = [PLOT.left + X_INSET, PLOT_RIGHT - X_INSET];
  const low = xs[0] ?? 0;
  const high = xs.at(-1) ?? 1;
  if (chart.xScale === 'log' && low > 0) {
    const scale = scaleLog()
      .domain([low, high === low ? low * 10 : high])
      .range(range);
    return { at: scale, ticks: [...xs], dodge: 0 };
  }
  if (chart.xScale === 'linear' || chart.xScale === 'log') {
    const scale = scaleLinear()
      .domain([0, Math.max(high, 1)])
      .nice(X_TICKS)
      .range(range);
    return { at: scale, ticks: scale.ticks(X_TICKS), dodge: 0 };
  }
  const scale = scalePoint<number>()
    .domain(xs)
    .range([PLOT.left, PLOT_RIGHT])
    .padding(DODGE_SHARE / 2 + 0.05);
  const dodge = Math.min(DODGE, (scale.step() * DODGE_SHARE) / Math.max(1, chart.series.length - 1));
  return { at: scale, ticks: [...xs], dodge };
}

const X_LABEL = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 4, useGrouping: false });

export function renderLineChart(chart: LineChart): string {
  const xs = [...new Set(chart.series.flatMap((s) => s.points.map((p) => p.x)))].sort((a, b) => a - b);
  const points = chart.series.flatMap((s) => s.points);
  const ys = points.flatMap((p) => (p.interval ? [p.y, p.interval.low, p.interval.high] : [p.y]));
  const x = xAxis(xs, chart);
  const { dodge } = x;
  const y = yAxis(ys, chart.yScale ?? 'linear', [PLOT_BOTTOM, PLOT.top]);
  const legend = renderLegend(legendItems(chart), PLOT_RIGHT + LEGEND_GAP, PLOT.top + 10);
  const width = Math.max(MIN_WIDTH, Math.ceil(PLOT_RIGHT + LEGEND_GAP + legend.width + PAD));
  const height = Math.max(MIN_HEIGHT, Math.ceil(legend.bottom + PAD));
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="${LEGEND_FONT_SIZE}">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${PLOT.left + PLOT.width / 2}" y="22" text-anchor="middle" font-size="15">${xmlText(chart.title)}</text>`,
    ...axisParts(chart, x, y),
    ...chart.series.flatMap((series, i) =>
      seriesParts(series, (i - (chart.series.length - 1) / 2) * dodge, i, x.at, y),
    ),
    ...legend.parts,
    '</svg>',
    '',
  ].join('\n');
}

function axisParts(chart: LineChart, x: XAxis, y: YAxis): string[] {
  const parts = y.ticks.flatMap((tick) => [
    `<line x1="${PLOT.left}" x2="${PLOT_RIGHT}" y1="${y.at(tick)}" y2="${y.at(tick)}" stroke="#e5e5e5"/>`,
    `<text x="${PLOT.left - 8}" y="${y.at(tick) + 4}" text-anchor="end">${xmlText(y.label(tick))}</text>`,
  ]);
  for (const value of x.ticks) {
    const tx = x.at(value) ?? 0;
    parts.push(
      `<line x1="${tx}" x2="${tx}" y1="${PLOT_BOTTOM}" y2="${PLOT_BOTTOM + 5}" stroke="#333"/>`,
      `<text x="${tx}" y="${PLOT_BOTTOM + 18}" text-anchor="middle">${X_LABEL.format(value)}</text>`,
    );
  }
  const yLabel = y.log ? `${chart.yLabel}, log scale` : chart.yLabel;
  parts.push(
    `<line x1="${PLOT.left}" x2="${PLOT_RIGHT}" y1="${PLOT_BOTTOM}" y2="${PLOT_BOTTOM}" stroke="#333"/>`,
    `<line x1="${PLOT.left}" x2="${PLOT.left}" y1="${PLOT.top}" y2="${PLOT_BOTTOM}" stroke="#333"/>`,
    `<text x="${PLOT.left + PLOT.width / 2}" y="${PLOT_BOTTOM + 40}" text-anchor="middle">${xmlText(chart.xLabel)}</text>`,
    `<text transform="translate(18 ${PLOT.top + PLOT.height / 2}) rotate(-90)" text-anchor="middle">${xmlText(yLabel)}</text>`,
  );
  return parts;
}

/** A series' line, error bars and markers, drawn `offset` px beside its client counts. */
function seriesParts(
  series: ChartSeries,
  offset: number,
  index: number,
  x: (v: number) => number | undefined,
  y: YAxis,
): string[] {
  const style = seriesStyle(index);
  const px = (p: ChartPoint) => (x(p.x) ?? 0) + offset;
  const sorted = [...series.points].sort((a, b) => a.x - b.x);
  const path = line<ChartPoint>()
    .x(px)
    .y((p) => y.at(p.y));
  return [
    `<path class="series" data-series="${xmlText(series.name)}" d="${path(sorted) ?? ''}" fill="none" stroke="${style.color}" stroke-width="2"${dashAttribute(style)}/>`,
    ...sorted.flatMap((p) => [
      ...(p.interval ? [errorBar(px(p), y.at(p.interval.low), y.at(p.interval.high), style.color)] : []),
      marker(px(p), y.at(p.y), style.color, p.hollow === true),
    ]),
  ];
}

function legendItems(chart: LineChart): LegendItem[] {
  const points = chart.series.flatMap((s) => s.points);
  const notes: LegendItem[] = [
    ...(chart.intervalLabel && points.some((p) => p.interval)
      ? [
          {
            label: chart.intervalLabel,
            icon: (cx: number, cy: number) => errorBar(cx, cy + 6, cy - 6, '#333'),
          },
        ]
      : []),
    ...(chart.hollowLabel && points.some((p) => p.hollow)
      ? [{ label: chart.hollowLabel, icon: (cx: number, cy: number) => marker(cx, cy, '#333', true) }]
      : []),
  ];
  return [
    ...chart.series.map((series, i) => ({ label: series.name, icon: sample(seriesStyle(i)) })),
    ...notes.map((note, n) => ({ ...note, apart: n === 0 })),
  ];
}

/** A series' legend sample: a stretch of its line, in its dash pattern. */
const sample = (style: SeriesStyle) => (cx: number, cy: number) =>
  `<line x1="${cx - 12}" x2="${cx + 12}" y1="${cy}" y2="${cy}" stroke="${style.color}" stroke-width="2"${dashAttribute(style)}/>`;

function errorBar(cx: number, low: number, high: number, color: string): string {
  return [
    `<g class="ci" stroke="${color}" stroke-width="1.2">`,
    `<line x1="${cx}" x2="${cx}" y1="${low}" y2="${high}"/>`,
    `<line x1="${cx - CAP}" x2="${cx + CAP}" y1="${low}" y2="${low}"/>`,
    `<line x1="${cx - CAP}" x2="${cx + CAP}" y1="${high}" y2="${high}"/>`,
    '</g>',
  ].join('');
}

function marker(cx: number, cy: number, color: string, hollow: boolean): string {
  return hollow
    ? `<circle class="client-bound" cx="${cx}" cy="${cy}" r="4.5" fill="white" stroke="${color}" stroke-width="2"/>`
    : `<circle class="point" cx="${cx}" cy="${cy}" r="3" fill="${color}"/>`;
}
