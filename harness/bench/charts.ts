/**
 * Line charts as standalone SVG (so they render on a code host): one line per series over the client
 * counts. d3-scale maps the values and picks the ticks, d3-shape draws the lines.
 */
import { scaleLinear, scaleLog, scalePoint } from 'd3-scale';
import { line } from 'd3-shape';

export interface ChartSeries {
  name: string;
  points: { x: number; y: number }[];
}

export interface LineChart {
  title: string;
  xLabel: string;
  yLabel: string;
  series: ChartSeries[];
}

const WIDTH = 720;
const HEIGHT = 400;
const MARGIN = { top: 40, right: 200, bottom: 50, left: 70 };
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];

const xmlText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function renderLineChart(chart: LineChart): string {
  const xs = [...new Set(chart.series.flatMap((s) => s.points.map((p) => p.x)))].sort((a, b) => a - b);
  const ys = chart.series.flatMap((s) => s.points.map((p) => p.y));
  const x = scalePoint<number>()
    .domain(xs)
    .range([MARGIN.left, WIDTH - MARGIN.right])
    .padding(0.3);
  const yMin = Math.min(...ys);
  const yMax = Math.max(1, ...ys);
  // Latencies span orders of magnitude between 1 and 150 clients: a log axis keeps the small ones readable.
  const logScale = yMin > 0 && yMax / yMin > 50;
  const y = (logScale ? scaleLog().domain([yMin, yMax]) : scaleLinear().domain([0, yMax]))
    .nice()
    .range([HEIGHT - MARGIN.bottom, MARGIN.top]);
  const path = line<{ x: number; y: number }>()
    .x((p) => x(p.x) ?? 0)
    .y((p) => y(p.y));

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
    `<text transform="translate(18 ${(MARGIN.top + HEIGHT - MARGIN.bottom) / 2}) rotate(-90)" text-anchor="middle">${xmlText(chart.yLabel)}</text>`,
  );
  chart.series.forEach((series, i) => {
    const color = COLORS[i % COLORS.length];
    const points = [...series.points].sort((a, b) => a.x - b.x);
    parts.push(
      `<path class="series" data-series="${xmlText(series.name)}" d="${path(points) ?? ''}" fill="none" stroke="${color}" stroke-width="2"/>`,
    );
    for (const p of points) parts.push(`<circle cx="${x(p.x) ?? 0}" cy="${y(p.y)}" r="3" fill="${color}"/>`);
    const ly = MARGIN.top + 10 + i * 20;
    parts.push(
      `<line x1="${WIDTH - MARGIN.right + 15}" x2="${WIDTH - MARGIN.right + 35}" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="2"/>`,
      `<text x="${WIDTH - MARGIN.right + 40}" y="${ly + 4}">${xmlText(series.name)}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
