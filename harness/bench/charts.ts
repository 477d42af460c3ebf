/**
 * Line charts as standalone SVG (so they render on a code host): one line per series over the client
 * counts, with an error bar where a point has an interval and a hollow marker where a point is not to be
 * trusted. d3-scale maps the values and picks the ticks, d3-shape draws the lines.
 */
import { scaleLinear, scaleLog, scalePoint } from 'd3-scale';
import { line } from 'd3-shape';

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
  yScale?: 'linear' | 'log-when-wide';
  /** Legend entries for the error bars and the hollow markers, shown when some point has one. */
  intervalLabel?: string;
  hollowLabel?: string;
}

const WIDTH = 720;
const HEIGHT = 400;
const MARGIN = { top: 40, right: 200, bottom: 50, left: 70 };
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];

const WIDE_SPAN = 10;
const CAP = 4;
/** Series sharing a client count are drawn side by side, this far apart, so their error bars stay apart. */
const DODGE = 5;

const xmlText = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function renderLineChart(chart: LineChart): string {
  const xs = [...new Set(chart.series.flatMap((s) => s.points.map((p) => p.x)))].sort((a, b) => a - b);
  const points = chart.series.flatMap((s) => s.points);
  const ys = points.flatMap((p) => (p.interval ? [p.y, p.interval.low, p.interval.high] : [p.y]));
  const x = scalePoint<number>()
    .domain(xs)
    .range([MARGIN.left, WIDTH - MARGIN.right])
    .padding(0.3);
  const yMin = Math.min(...ys);
  const yMax = Math.max(1, ...ys);
  const logScale = chart.yScale === 'log-when-wide' && yMin > 0 && yMax / yMin > WIDE_SPAN;
  const y = (logScale ? scaleLog().domain([yMin, yMax]) : scaleLinear().domain([0, yMax]))
    .nice()
    .range([HEIGHT - MARGIN.bottom, MARGIN.top]);

  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${WIDTH / 2 - MARGIN.right / 2}" y="22" text-anchor="middle" font-size="15">${xmlText(chart.title)}</text>`,
  ];
  for (const tick of y.ticks(6)) {
    const ty = y(tick);
    parts.push(
      `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${ty}" y2="${ty}" stroke="#e5e5e5"/>`,
      `<text x="${MARGIN.left - 8}" y="${ty + 4}" text-anchor="end">${xmlText(y.tickFormat(6)(tick))}</text>`,
    );
  }
  for (const value of xs) {
    const tx = x(value) ?? 0;
    parts.push(
      `<line x1="${tx}" x2="${tx}" y1="${HEIGHT - MARGIN.bottom}" y2="${HEIGHT - MARGIN.bottom + 5}" stroke="#333"/>`,
      `<text x="${tx}" y="${HEIGHT - MARGIN.bottom + 18}" text-anchor="middle">${value}</text>`,
    );
  }
  parts.push(
    `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${HEIGHT - MARGIN.bottom}" y2="${HEIGHT - MARGIN.bottom}" stroke="#333"/>`,
    `<line x1="${MARGIN.left}" x2="${MARGIN.left}" y1="${MARGIN.top}" y2="${HEIGHT - MARGIN.bottom}" stroke="#333"/>`,
    `<text x="${(MARGIN.left + WIDTH - MARGIN.right) / 2}" y="${HEIGHT - 10}" text-anchor="middle">${xmlText(chart.xLabel)}</text>`,
    `<text transform="translate(18 ${(MARGIN.top + HEIGHT - MARGIN.bottom) / 2}) rotate(-90)" text-anchor="middle">${xmlText(logScale ? `${chart.yLabel}, log scale` : chart.yLabel)}</text>`,
  );
  const legendX = WIDTH - MARGIN.right + 15;
  const legendY = (row: number) => MARGIN.top + 10 + row * 20;
  chart.series.forEach((series, i) => {
    const color = COLORS[i % COLORS.length] ?? '#333';
    const offset = (i - (chart.series.length - 1) / 2) * DODGE;
    const px = (p: ChartPoint) => (x(p.x) ?? 0) + offset;
    const sorted = [...series.points].sort((a, b) => a.x - b.x);
    const path = line<ChartPoint>()
      .x(px)
      .y((p) => y(p.y));
    parts.push(
      `<path class="series" data-series="${xmlText(series.name)}" d="${path(sorted) ?? ''}" fill="none" stroke="${color}" stroke-width="2"/>`,
    );
    for (const p of sorted) {
      if (p.interval) parts.push(errorBar(px(p), y(p.interval.low), y(p.interval.high), color));
      parts.push(marker(px(p), y(p.y), color, p.hollow === true));
    }
    const ly = legendY(i);
    parts.push(
      `<line x1="${legendX}" x2="${legendX + 20}" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="2"/>`,
      `<text x="${legendX + 25}" y="${ly + 4}">${xmlText(series.name)}</text>`,
    );
  });
  const notes = [
    ...(chart.intervalLabel && points.some((p) => p.interval)
      ? [{ icon: (cy: number) => errorBar(legendX + 10, cy + 6, cy - 6, '#333'), label: chart.intervalLabel }]
      : []),
    ...(chart.hollowLabel && points.some((p) => p.hollow)
      ? [{ icon: (cy: number) => marker(legendX + 10, cy, '#333', true), label: chart.hollowLabel }]
      : []),
  ];
  notes.forEach((note, n) => {
    const ly = legendY(chart.series.length + 0.5 + n);
    parts.push(note.icon(ly), `<text x="${legendX + 25}" y="${ly + 4}">${xmlText(note.label)}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

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
