/**
 * The bench charts read at a glance, without a browser: every series drawn inside the plot (a log axis
 * when the values span more than 10×, so the slow designs do not lie flat on the axis), told apart by
 * colour and dash, and named in a legend wide enough for its longest name; on a synthetic bench of 12
 * designs over 1,000× with a 60-character name, and on the committed example, whose files must be what
 * `npm run examples:render` makes of its report.json. test/html-report.test.ts draws them in Chromium.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { benchCharts, chartSeries } from '../harness/report/bench/bench-charts.ts';
import { type BenchReport, writeBenchFiles } from '../harness/report/bench/bench-report.ts';
import { PALETTE } from '../harness/report/bench/chart-style.ts';
import { PLOT } from '../harness/report/bench/charts.ts';
import { textWidth, wrapText } from '../harness/report/bench/text-width.ts';
import { LONG_NAME, manyDesigns, throughputChart } from './many-designs.ts';

const EXAMPLES = fileURLToPath(new URL('../reports/examples/', import.meta.url));
const EXAMPLE = join(EXAMPLES, 'bench');
const exampleReport = (name: string) =>
  JSON.parse(readFileSync(join(EXAMPLES, name, 'report.json'), 'utf8')) as BenchReport;
const chartsOf = (report: BenchReport) => benchCharts(report.bench, report.burst, 'reservations / s');
interface Drawn {
  width: number;
  /** The x axis's tick labels and where they stand, left to right. */
  xTicks: { label: string; x: number }[];
  paths: { name: string; stroke: string; dash: string; points: [number, number][] }[];
  legend: { x: number; lines: string[] }[];
  yTicks: string[];
  yLabel: string;
}

const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
type Node = Record<string, unknown>;

/** The parts of a chart's SVG these checks read. */
function drawn(svg: string): Drawn {
  const root = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(svg).svg as Node;
  const texts = asArray(root.text as Node[]);
  const text = (t: Node) => String(t['#text'] ?? '');
  return {
    width: Number(root.width),
    xTicks: texts
      .filter((t) => t['text-anchor'] === 'middle' && Number(t.y) === PLOT.top + PLOT.height + 18)
      .map((t) => ({ label: text(t), x: Number(t.x) })),
    paths: asArray(root.path as Node[]).map((p) => ({
      name: String(p['data-series']),
      stroke: String(p.stroke),
      dash: String(p['stroke-dasharray'] ?? ''),
      points: [...String(p.d).matchAll(/(-?[\d.]+),(-?[\d.]+)/g)].map((m) => [Number(m[1]), Number(m[2])]),
    })),
    legend: texts
      .filter((t) => t.class === 'legend')
      .map((t) => ({ x: Number(t.x), lines: asArray(t.tspan as Node[]).map(text) })),
    yTicks: texts.filter((t) => t['text-anchor'] === 'end').map(text),
    yLabel: texts.map(text).find((t) => t.startsWith('reservations')) ?? '',
  };
}

/** Every series inside the plot and clear of the axis line, each with a colour and dash of its own. */
function expectEverySeriesReadable(chart: Drawn, names: string[]): void {
  expect(chart.paths.map((p) => p.name)).toEqual(names);
  for (const path of chart.paths) {
    expect(path.points.length, path.name).toBeGreaterThan(1);
    for (const [px, py] of path.points) {
      expect(px, path.name).toBeGreaterThanOrEqual(PLOT.left);
      expect(px, path.name).toBeLessThanOrEqual(PLOT.left + PLOT.width);
      expect(py, path.name).toBeGreaterThanOrEqual(PLOT.top);
      expect(py, path.name).toBeLessThan(PLOT.top + PLOT.height - 5);
    }
  }
  const styles = chart.paths.map((p) => `${p.stroke} ${p.dash}`);
  expect(new Set(styles).size).toBe(styles.length);
}

/** Each legend label whole, its lines within the chart's width. */
function expectLegendUncut(chart: Drawn, names: string[]): void {
  // A wrapped label loses only the spaces it broke at.
  const labels = chart.legend.map((l) => l.lines.join('').replace(/ /g, ''));
  for (const name of names) expect(labels).toContain(name.replace(/ /g, ''));
  for (const entry of chart.legend)
    for (const line of entry.lines)
      expect(entry.x + textWidth(line, 12), line).toBeLessThanOrEqual(chart.width);
}

/** sRGB hex → CIELAB (D65). */
function lab(hex: string): [number, number, number] {
  const linear = [1, 3, 5].map((i) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c > 0.04045 ? ((c + 0.055) / 1.055) ** 2.4 : c / 12.92;
  });
  const [r = 0, g = 0, b = 0] = linear;
  const f = (t: number) => (t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116);
  const fx = f((r * 0.4124 + g * 0.3576 + b * 0.1805) / 0.95047);
  const fy = f(r * 0.2126 + g * 0.7152 + b * 0.0722);
  const fz = f((r * 0.0193 + g * 0.1192 + b * 0.9505) / 1.08883);
  return [116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)];
}

describe('the throughput chart of many designs', () => {
  it('12 designs over 1,000×: a 1-2-5 log axis, every series in the plot, distinct, named in full', () => {
    const series = manyDesigns();
    const chart = drawn(throughputChart(series));
    expect(chart.yLabel).toBe('reservations / s, log scale');
    expect(chart.yTicks).toEqual([
      '20',
      '50',
      '100',
      '200',
      '500',
      '1,000',
      '2,000',
      '5,000',
      '10,000',
      '20,000',
      '50,000',
      '100,000',
    ]);
    expectEverySeriesReadable(
      chart,
      series.map((s) => s.name),
    );
    expect(new Set(chart.paths.map((p) => p.stroke)).size).toBe(12);
    expectLegendUncut(
      chart,
      series.map((s) => s.name),
    );
    expect(chart.width).toBeGreaterThan(720);
  });

  it('past the palette, colours come round with a dash: no two series share both', () => {
    const series = manyDesigns(PALETTE.length + 3);
    const chart = drawn(throughputChart(series));
    expectEverySeriesReadable(
      chart,
      series.map((s) => s.name),
    );
    expect(chart.paths.slice(PALETTE.length).every((p) => p.dash !== '')).toBe(true);
  });

  it('a narrow span keeps a linear axis from 0', () => {
    const chart = drawn(
      throughputChart([
        {
          name: 'a',
          points: [
            { x: 1, y: 900 },
            { x: 4, y: 1000 },
          ],
        },
        {
          name: 'b',
          points: [
            { x: 1, y: 300 },
            { x: 4, y: 400 },
          ],
        },
      ]),
    );
    expect(chart.yLabel).toBe('reservations / s');
    expect(chart.yTicks[0]).toBe('0');
    expect(chart.width).toBe(720);
  });

  it('the palette has 12 colours at least 25 apart (CIELAB ΔE), none near white', () => {
    expect(PALETTE.length).toBeGreaterThanOrEqual(12);
    const labs = PALETTE.map(lab);
    for (const [i, a] of labs.entries()) {
      expect(a[0], PALETTE[i]).toBeLessThan(75);
      for (const b of labs.slice(i + 1))
        expect(Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2])).toBeGreaterThan(25);
    }
  });

  it('wraps a label too wide for the legend at a break, keeping every character', () => {
    const lines = wrapText(LONG_NAME, 200, 12);
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(textWidth(line, 12)).toBeLessThanOrEqual(200);
    expect(lines.join('').replace(/ /g, '')).toBe(LONG_NAME.replace(/ /g, ''));
    expect(wrapText('x'.repeat(80), 100, 12).join('')).toBe('x'.repeat(80));
  });
});

describe('the committed example bench report', () => {
  const report = JSON.parse(readFileSync(join(EXAMPLE, 'report.json'), 'utf8')) as BenchReport;

  it('draws every design on a log axis, clear of it and of each other', () => {
    const series = chartSeries(report.bench, (e) => ({
      y: e.median.throughput,
      interval: e.ci95?.throughput,
    }));
    const chart = drawn(readFileSync(join(EXAMPLE, 'throughput.svg'), 'utf8'));
    expect(chart.yLabel).toBe('reservations / s, log scale');
    expectEverySeriesReadable(
      chart,
      series.map((s) => s.name),
    );
    expectLegendUncut(
      chart,
      series.map((s) => s.name),
    );
  });

  it('is what `npm run examples:render` makes of its report.json', () => {
    const folder = mkdtempSync(join(tmpdir(), 'reservebench-example-'));
    try {
      writeFileSync(join(folder, 'report.json'), readFileSync(join(EXAMPLE, 'report.json')));
      writeBenchFiles(folder, report);
      for (const file of readdirSync(EXAMPLE))
        expect(readFileSync(join(folder, file), 'utf8'), file).toBe(
          readFileSync(join(EXAMPLE, file), 'utf8'),
        );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('charts against what the series vary', () => {
  it('the bucket sweep: against the knob on a log axis, one line per client count, no clients chart', () => {
    const charts = chartsOf(exampleReport('bench-buckets'));
    expect(charts.map((c) => c.file)).toEqual([
      'bucketed-buckets-throughput.svg',
      'bucketed-buckets-p99.svg',
    ]);
    const chart = drawn(charts[0]?.svg ?? '');
    expect(chart.xTicks.map((t) => t.label)).toEqual(['1', '4', '16', '64', '256']);
    // Each value 4× the one before: on a log axis, equal steps apart.
    const gaps = chart.xTicks.slice(1).map((t, i) => t.x - (chart.xTicks[i]?.x ?? 0));
    for (const gap of gaps) expect(gap).toBeCloseTo(gaps[0] ?? 0, 5);
    expect(chart.paths.map((p) => p.name)).toEqual(['150 clients']);
    expect(chart.paths[0]?.points).toHaveLength(5);
  });

  it('a sweep at two client counts draws a line per count, and the clients chart a line per variant', () => {
    const report = exampleReport('bench-buckets');
    const twice = [
      ...report.bench,
      ...report.bench.map((e) => ({ ...e, clients: 16, median: { ...e.median, throughput: 1 } })),
    ];
    const charts = chartsOf({ ...report, bench: twice });
    expect(charts.map((c) => c.file)).toEqual([
      'throughput.svg',
      'p99.svg',
      'bucketed-buckets-throughput.svg',
      'bucketed-buckets-p99.svg',
    ]);
    expect(drawn(charts[2]?.svg ?? '').paths.map((p) => p.name)).toEqual(['150 clients', '16 clients']);
    expect(drawn(charts[0]?.svg ?? '').paths).toHaveLength(6);
  });

  it('the open model: goodput and p99 against the offered rate, one line per design', () => {
    const charts = chartsOf(exampleReport('bench-open'));
    expect(charts.map((c) => c.file)).toEqual(['open-goodput.svg', 'open-p99.svg']);
    const chart = drawn(charts[0]?.svg ?? '');
    expect(chart.xTicks.map((t) => t.label)).toEqual(['300', '1000', '3000']);
    expect(chart.paths.map((p) => p.name)).toEqual(['hot-row', 'skip-locked-slots']);
  });

  it('a burst: units left and answers against time, per burst size, once it recorded a timeline', () => {
    const report = exampleReport('bench-burst');
    const burst = report.burst ?? [];
    expect(chartsOf(report)).toEqual([]);
    const timed = burst.map((e) => ({
      ...e,
      timeline: [
        { ms: 0, unitsLeft: e.stock, answered: 0 },
        { ms: e.soldOutMs ?? 0, unitsLeft: 0, answered: e.stock },
        { ms: e.answeredMs, unitsLeft: 0, answered: e.requests },
      ],
    }));
    const charts = chartsOf({ ...report, burst: timed });
    const sizes = [...new Set(burst.map((e) => e.requests))];
    expect(charts.map((c) => c.file)).toEqual(
      sizes.flatMap((n) => [`burst-${n}-units-left.svg`, `burst-${n}-answered.svg`]),
    );
    const units = drawn(charts[0]?.svg ?? '');
    expect(units.paths).toHaveLength(burst.filter((e) => e.requests === sizes[0]).length);
    for (const path of units.paths) expect(path.points).toHaveLength(3);
  });
});
