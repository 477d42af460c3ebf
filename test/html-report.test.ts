/**
 * report.html, written beside report.md by `run` and `bench`: parsed (parse5) to hold report.md's tables
 * with the JSON's rows, the charts inlined, all text escaped and nothing to fetch; then drawn in a real
 * headless Chromium (scripts/chromium.ts: CHROMIUM_PATH, or the one npm package @sparticuz/chromium ships; either
 * with that package's fonts; driven by playwright-core) that must lay out every table and chart without a
 * console error or a request, and whose screenshot must show more than a blank page; no page may be wider
 * than the window, on screen or on paper. The throughput chart, of the committed example and of 12 made-up
 * designs, must show every series in its own colour inside its plot (counted in the screenshot's pixels)
 * and every legend label inside the chart. One browser serves the whole file.
 *
 * The reports come from a small real run and a small real bench against the shared test server.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type DefaultTreeAdapterTypes, parse } from 'parse5';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { admissionFactors } from '../harness/bench/series-factors.ts';
import { BOUNDARY_COLUMNS } from '../harness/contracts/reservation/report/boundary-columns.ts';
import {
  caseTable,
  coverageTable,
  isolationTable,
} from '../harness/contracts/reservation/report/result-tables.ts';
import { chartSeries } from '../harness/report/bench/bench-charts.ts';
import { type BenchReport, writeBenchFiles } from '../harness/report/bench/bench-report.ts';
import { PLOT } from '../harness/report/bench/charts.ts';
import { renderHtmlReport } from '../harness/report/html-report.ts';
import type { Report } from '../harness/report/report.ts';
import { type LaunchedChromium, launchChromium } from '../scripts/chromium.ts';
import { shootExamplesIn } from '../scripts/example-shots.ts';
import { manyDesigns, throughputChart } from './many-designs.ts';
import { runCli } from './run-cli.ts';

const serverUrl = inject('serverUrl');

type Element = DefaultTreeAdapterTypes.Element;
type Node = DefaultTreeAdapterTypes.Node;

interface Written<T> {
  folder: string;
  report: T;
  html: string;
  markdown: string;
}

const scratch = mkdtempSync(join(tmpdir(), 'reservebench-html-'));
let run: Written<Report>;
let bench: Written<BenchReport>;
let failing: Written<Report>;

async function written<T>(args: string[], reports: string, latest: string, code = 0): Promise<Written<T>> {
  const cli = await runCli([...args, '--json', '--reports', reports], { DATABASE_URL: serverUrl });
  expect(cli.code, cli.stderr).toBe(code);
  const folder = join(reports, latest);
  return {
    folder,
    report: JSON.parse(cli.stdout) as T,
    html: readFileSync(join(folder, 'report.html'), 'utf8'),
    markdown: readFileSync(join(folder, 'report.md'), 'utf8'),
  };
}

beforeAll(async () => {
  // Passes, a caught control, an n/a case and a coverage gap (lock-first has no expire), and the
  // isolation matrix.
  run = await written<Report>(
    [
      'run',
      '--strategy',
      'hot-row,check-then-act,test/fixtures/lock-first.ts',
      '--scenario',
      'contention,expiry,user-race',
      '--isolation',
      'read-committed',
    ],
    join(scratch, 'run'),
    'latest',
  );
  // A design that claims to hold and oversells: a failing case, with its history's witness.
  failing = await written<Report>(
    ['run', '--strategy', 'test/fixtures/oversell-declared-safe.ts', '--scenario', 'contention'],
    join(scratch, 'failing'),
    'latest',
    1,
  );
  // Two client counts, with and without admission, two trials: lines, error bars and the admission table.
  bench = await written<BenchReport>(
    [
      'bench',
      '--strategy',
      'hot-row,memory-quota',
      '--clients',
      '1,3',
      '--admission',
      '2:4',
      '--trials',
      '2',
      '--warmup-ms',
      '50',
      '--duration-ms',
      '200',
      '--stock',
      '20000',
    ],
    join(scratch, 'bench'),
    'latest-bench',
  );
}, 240_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// --- the parsed document -------------------------------------------------------------------------------

function parseStrict(html: string) {
  const errors: string[] = [];
  const doc = parse(html, { onParseError: (e) => errors.push(`${e.code} at ${e.startLine}:${e.startCol}`) });
  return { doc, errors };
}

function* walk(node: Node): Generator<Element> {
  if ('tagName' in node) yield node;
  if ('childNodes' in node) for (const child of node.childNodes) yield* walk(child);
  if ('content' in node) yield* walk(node.content);
}

const all = (node: Node, tag: string) => [...walk(node)].filter((e) => e.tagName === tag);
const attr = (e: Element, name: string) => e.attrs.find((a) => a.name === name)?.value;

function textOf(node: Node): string {
  if (node.nodeName === '#text' && 'value' in node) return node.value;
  return 'childNodes' in node ? node.childNodes.map(textOf).join('') : '';
}

interface ParsedTable {
  headers: string[];
  rows: string[][];
}

function tablesOf(doc: Node): ParsedTable[] {
  return all(doc, 'table').map((table) => ({
    headers: all(table, 'th').map((th) => textOf(th).trim()),
    rows: all(table, 'tbody')
      .flatMap((body) => all(body, 'tr'))
      .map((tr) => all(tr, 'td').map((td) => textOf(td).trim())),
  }));
}

/** Each table of report.md as its column count and body-row count, read straight off the Markdown lines. */
function markdownTableShapes(markdown: string): { columns: number; rows: number }[] {
  const shapes: { columns: number; rows: number }[] = [];
  let block: string[] = [];
  for (const line of [...markdown.split('\n'), '']) {
    if (line.startsWith('|')) {
      block.push(line);
      continue;
    }
    if (block.length >= 2 && /^\|(\s*:?-+:?\s*\|)+$/.test(block[1] ?? '')) {
      shapes.push({ columns: (block[1]?.match(/-+/g) ?? []).length, rows: block.length - 2 });
    }
    block = [];
  }
  return shapes;
}

/** The table whose header row is exactly these headers. */
function tableWithHeaders(tables: ParsedTable[], headers: readonly string[]): ParsedTable {
  const found = tables.filter((t) => JSON.stringify(t.headers) === JSON.stringify(headers));
  expect(found, `one table headed ${headers.join(' | ')}`).toHaveLength(1);
  return found[0] as ParsedTable;
}

const tableHeadedBy = (tables: ParsedTable[], header: string) => {
  const found = tables.filter((t) => t.headers.includes(header));
  expect(found, `one table with a "${header}" column`).toHaveLength(1);
  return found[0] as ParsedTable;
};

/** Attributes that make a browser fetch or navigate; none may leave the file. */
const URL_ATTRIBUTES = [
  'src',
  'href',
  'xlink:href',
  'srcset',
  'action',
  'formaction',
  'poster',
  'data',
  'background',
];
const FETCHING_TAGS = [
  'script',
  'link',
  'img',
  'iframe',
  'object',
  'embed',
  'video',
  'audio',
  'source',
  'base',
  'form',
];

function expectSelfContained(html: string): void {
  const { doc, errors } = parseStrict(html);
  expect(errors).toEqual([]);
  const elements = [...walk(doc)];
  expect(elements.filter((e) => FETCHING_TAGS.includes(e.tagName)).map((e) => e.tagName)).toEqual([]);
  for (const e of elements) {
    for (const a of e.attrs) {
      if (URL_ATTRIBUTES.includes(a.name) || a.name.startsWith('on')) {
        expect(a.name.startsWith('on'), `${e.tagName} ${a.name}`).toBe(false);
        expect(a.value, `${e.tagName} ${a.name}`).not.toMatch(/^\s*([a-z][a-z0-9+.-]*:|[\\/]{2})/i);
      }
    }
  }
  for (const style of all(doc, 'style')) expect(textOf(style)).not.toMatch(/url\(|@import/i);
  const csp = all(doc, 'meta').find((m) => attr(m, 'http-equiv') === 'Content-Security-Policy');
  expect(attr(csp as Element, 'content')).toMatch(/^default-src 'none';/);
}

describe('report.html, parsed', () => {
  it('run: holds every table of report.md, with the JSON report rows, and fetches nothing', () => {
    const { report, html, markdown } = run;
    expectSelfContained(html);
    const { doc } = parseStrict(html);
    const tables = tablesOf(doc);

    const shapes = markdownTableShapes(markdown);
    expect(tables.map((t) => ({ columns: t.headers.length, rows: t.rows.length }))).toEqual(shapes);
    for (const t of tables) for (const row of t.rows) expect(row).toHaveLength(t.headers.length);

    const measuredIds = report.cases.filter((c) => c.status !== 'n/a').map((c) => c.id);
    expect(report.cases.length).toBeGreaterThan(measuredIds.length); // an n/a case was left out of the table
    const cases = tableWithHeaders(tables, caseTable(report.cases).headers);
    expect(cases.rows).toHaveLength(caseTable(report.cases).rows.length);
    expect(new Set(cases.rows.map((r) => r[0]))).toEqual(new Set(measuredIds));

    const boundary = tableWithHeaders(tables, BOUNDARY_COLUMNS);
    expect(boundary.rows.map((r) => r[0])).toEqual(report.boundary.map((b) => b.strategy));
    expect(boundary.rows.find((r) => r[0] === 'lock-first')?.at(-1)).toMatch(/\bexpiry\b/);

    const coverage = tableWithHeaders(tables, coverageTable(report.coverage).headers);
    expect(coverage.rows).toEqual(coverageTable(report.coverage).rows);

    expect(report.isolation.length).toBeGreaterThan(0);
    const isolation = tableWithHeaders(tables, isolationTable(report.isolation).headers);
    expect(isolation.rows.map((r) => r.slice(0, 2))).toEqual(
      report.isolation.map((r) => [r.strategy, r.level]),
    );

    const headings = all(doc, 'h2').map((h) => textOf(h));
    expect(headings).toEqual(
      expect.arrayContaining([
        'Matrix — reservations',
        'Boundary table',
        'Cases',
        'Coverage',
        'Case details',
      ]),
    );
    expect(textOf(all(doc, 'title')[0] as Element)).toBe('reservebench report');
    expect(all(doc, 'svg')).toHaveLength(0);
  });

  it('run: a table of contents, each matrix cell linked to its case, collapsed and tagged for the filters', () => {
    const { report, html } = run;
    const { doc } = parseStrict(html);
    const headings = all(doc, 'h2').map((h) => textOf(h));
    // The table of contents names every section, linked to its heading.
    const toc = all(doc, 'nav')[0] as Element;
    expect(all(toc, 'a').map((a) => textOf(a))).toEqual(headings);
    const ids = new Set([...walk(doc)].map((e) => attr(e, 'id')).filter((id) => id !== undefined));
    for (const a of all(toc, 'a')) expect(ids.has((attr(a, 'href') ?? '').slice(1))).toBe(true);
    // Each matrix cell links to its case, collapsed under its heading, tagged for the filters.
    const cells = all(doc, 'a').filter((a) => (attr(a, 'class') ?? '').startsWith('cell'));
    expect(cells).toHaveLength(report.cases.length);
    const collapsed = all(doc, 'details').filter((d) => (attr(d, 'class') ?? '').startsWith('case'));
    expect(collapsed).toHaveLength(report.cases.length);
    for (const a of cells) {
      const target = (attr(a, 'href') ?? '').slice(1);
      const holder = collapsed.find((d) => all(d, 'div').some((div) => attr(div, 'id') === target));
      expect(holder, target).toBeDefined();
      for (const key of ['design', 'scenario', 'status'])
        expect(attr(holder as Element, `data-${key}`)).toMatch(/^\d+$/);
    }
    const filters = all(doc, 'fieldset').map((f) => textOf(all(f, 'legend')[0] as Element));
    expect(filters).toEqual(['design', 'scenario', 'status']);
  });

  it('bench: holds the series tables with a row per series and both charts inline', () => {
    const { report, html, markdown, folder } = bench;
    expectSelfContained(html);
    const { doc } = parseStrict(html);
    const tables = tablesOf(doc);
    expect(tables.map((t) => ({ columns: t.headers.length, rows: t.rows.length }))).toEqual(
      markdownTableShapes(markdown),
    );

    expect(report.bench).toHaveLength(2 * 2 * 2);
    const series = tableHeadedBy(tables, 'throughput median (reservations/s)');
    expect(series.rows.map((r) => [r[0], r[1], r[2], r[3]])).toEqual(
      report.bench.map((e) => [e.strategy, 'durable', e.admission ?? '-', String(e.clients)]),
    );
    const uncontended = tableHeadedBy(tables, 'throughput (reservations/s)');
    expect(uncontended.rows.map((r) => r[0])).toEqual(report.uncontended.map((u) => u.strategy));
    const factors = admissionFactors(report.bench);
    expect(factors.length).toBeGreaterThan(0);
    const admission = tableHeadedBy(tables, 'throughput with ÷ without admission (ratio of medians)');
    expect(admission.rows).toEqual(
      factors.map((f) => [f.strategy, 'durable', String(f.clients), String(f.factor)]),
    );

    // The two charts, inline: the same lines as the SVG files beside the report.
    const svgs = all(doc, 'svg');
    expect(svgs.map((s) => attr(s, 'aria-label'))).toEqual([
      'throughput vs clients',
      'p99 latency vs clients',
    ]);
    const names = chartSeries(report.bench, (e) => ({ y: e.median.throughput, interval: undefined }))
      .map((s) => s.name)
      .sort();
    for (const [svg, file] of svgs.map((s, i) => [s, ['throughput.svg', 'p99.svg'][i] ?? ''] as const)) {
      const paths = all(svg, 'path').filter((p) => attr(p, 'class') === 'series');
      expect(paths.map((p) => attr(p, 'data-series')).sort()).toEqual(names);
      expect(paths.every((p) => (attr(p, 'd') ?? '').length > 0)).toBe(true);
      const onDisk = readFileSync(join(folder, file), 'utf8');
      for (const p of paths) expect(onDisk).toContain(`d="${attr(p, 'd')}"`);
      expect(all(svg, 'g').filter((g) => attr(g, 'class') === 'ci')).toHaveLength(report.bench.length + 1);
    }
    // The CSV stays a link beside the report.
    expect(all(doc, 'a').flatMap((a) => (attr(a, 'href')?.startsWith('#') ? [] : [attr(a, 'href')]))).toEqual(
      ['bench.csv'],
    );
  });

  it('escapes all text: markup, outside links and images in the Markdown stay text', () => {
    const chart =
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>\n';
    const markdown = [
      '# odd <script>alert(1)</script> & "quotes"',
      '',
      '| case | note |',
      '| --- | --- |',
      '| <img src=https://evil.example/x.png onerror=alert(1)> | [x](https://evil.example/) [y](javascript:alert(1)) [z](//evil.example/z) |',
      '| a<br>b | ![remote](https://evil.example/p.svg) ![gone](gone.svg) ![bad](bad.svg) <b>bold</b> |',
      '',
      '![local chart](chart.svg)',
      '',
    ].join('\n');
    const html = renderHtmlReport(markdown, {
      'chart.svg': chart,
      'bad.svg': '<svg><script>alert(1)</script></svg>',
    });
    expectSelfContained(html);
    const { doc } = parseStrict(html);
    expect(textOf(all(doc, 'title')[0] as Element)).toBe('odd <script>alert(1)</script> & "quotes"');
    expect(textOf(all(doc, 'h1')[0] as Element)).toBe('odd <script>alert(1)</script> & "quotes"');
    expect(all(doc, 'a')).toHaveLength(0);
    expect(all(doc, 'b')).toHaveLength(0);
    const [first, second] = tablesOf(doc)[0]?.rows ?? [];
    expect(first?.[0]).toBe('<img src=https://evil.example/x.png onerror=alert(1)>');
    expect(first?.[1]).toBe('[x](https://evil.example/) [y](javascript:alert(1)) [z](//evil.example/z)');
    expect(second?.[0]).toBe('ab');
    expect(all(doc, 'br')).toHaveLength(1);
    expect(second?.[1]).toBe('![remote](https://evil.example/p.svg) [gone] [bad] <b>bold</b>');
    // Only the chart from the report's folder is drawn, and only once.
    const svgs = all(doc, 'svg');
    expect(svgs.map((s) => attr(s, 'aria-label'))).toEqual(['local chart']);
  });
});

// --- drawn in Chromium ----------------------------------------------------------------------------------

/** Distinct colours and the share of non-white pixels of a PNG. */
function pixelVariety(png: Buffer): { width: number; height: number; colours: number; inked: number } {
  const image = PNG.sync.read(png);
  const colours = new Set<number>();
  let inked = 0;
  for (let i = 0; i < image.data.length; i += 4) {
    const [r = 0, g = 0, b = 0] = [image.data[i], image.data[i + 1], image.data[i + 2]];
    colours.add((r << 16) | (g << 8) | b);
    if (r < 240 || g < 240 || b < 240) inked += 1;
  }
  return {
    width: image.width,
    height: image.height,
    colours: colours.size,
    inked: inked / (image.width * image.height),
  };
}

interface Drawn {
  tables: { width: number; height: number; rows: number }[];
  charts: { width: number; height: number; series: { name: string; width: number; height: number }[] }[];
  problems: string[];
  requests: string[];
  page: Buffer;
  chartShots: Buffer[];
  /** How far the page is wider than the window, on screen and on paper: 0 when every table fits. */
  overflow: { screen: number; print: number };
}

/** The one browser of this file, started for the first drawing and closed after the last. */
let browser: LaunchedChromium | undefined;

async function openPage(): Promise<Page> {
  return (await browserContext()).newPage();
}

async function browserContext(): Promise<BrowserContext> {
  browser ??= await launchChromium();
  return browser.context;
}

afterAll(async () => {
  await browser?.close();
});

const box = async (locator: Locator) => {
  const b = await locator.boundingBox();
  return { x: b?.x ?? 0, y: b?.y ?? 0, width: b?.width ?? 0, height: b?.height ?? 0 };
};

/** Opens the file in a new page, recording console errors and every request besides the file itself. */
async function load(htmlFile: string): Promise<{ page: Page; problems: string[]; requests: string[] }> {
  const page = await openPage();
  const problems: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
  const url = pathToFileURL(htmlFile).href;
  page.on('request', (r) => {
    if (r.url() !== url) requests.push(r.url());
  });
  await page.goto(url, { waitUntil: 'load' });
  return { page, problems, requests };
}

/** A string, not a function: the page's `document` is not in this file's Node types. */
const pageOverflow = async (page: Page) =>
  Number(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'));

async function draw(htmlFile: string, shots: string): Promise<Drawn> {
  const { page, problems, requests } = await load(htmlFile);
  try {
    // Collapsed tables and cases are laid out once opened.
    await page.evaluate('document.querySelectorAll("details").forEach((d) => { d.open = true; })');
    const tables = [];
    for (const table of await page.locator('table').all())
      tables.push({
        ...(await box(table)),
        rows: await table.locator('tbody tr').filter({ visible: true }).count(),
      });
    const charts = [];
    for (const svg of await page.locator('svg').all()) {
      const series = [];
      for (const path of await svg.locator('path.series').all())
        series.push({ name: (await path.getAttribute('data-series')) ?? '', ...(await box(path)) });
      charts.push({ ...(await box(svg)), series });
    }
    const screenshot = await page.screenshot({ path: join(shots, 'page.png'), fullPage: true });
    const chartShots: Buffer[] = [];
    // Only charts that have a box can be shot; a missing one fails on its size below.
    for (const [i, chart] of (await page.locator('svg').all()).entries())
      if ((charts[i]?.width ?? 0) > 0)
        chartShots.push(await chart.screenshot({ path: join(shots, `chart-${i}.png`), timeout: 10_000 }));
    const screen = await pageOverflow(page);
    await page.emulateMedia({ media: 'print' });
    const print = await pageOverflow(page);
    return { tables, charts, problems, requests, page: screenshot, chartShots, overflow: { screen, print } };
  } finally {
    await page.close();
  }
}

type Box = { x: number; y: number; width: number; height: number };

interface DrawnChart {
  problems: string[];
  /** The plot area (charts.ts' PLOT) on the page. */
  plot: Box;
  svg: Box;
  series: { name: string; stroke: string; box: Box }[];
  legend: Box[];
  /** A screenshot of the plot area alone, where only the series draw in colour. */
  plotShot: Buffer;
}

/** The page's first chart: where its series and legend labels were laid out, and the pixels of its plot. */
async function drawChart(htmlFile: string, shots: string): Promise<DrawnChart> {
  const { page, problems } = await load(htmlFile);
  try {
    const svg = page.locator('svg').first();
    const svgBox = await box(svg);
    const scale = svgBox.width / Number(await svg.getAttribute('width'));
    const plot = {
      x: svgBox.x + PLOT.left * scale,
      y: svgBox.y + PLOT.top * scale,
      width: PLOT.width * scale,
      height: PLOT.height * scale,
    };
    const series = [];
    for (const path of await svg.locator('path.series').all())
      series.push({
        name: (await path.getAttribute('data-series')) ?? '',
        stroke: (await path.getAttribute('stroke')) ?? '',
        box: await box(path),
      });
    const legend = [];
    for (const text of await svg.locator('text.legend').all()) legend.push(await box(text));
    const plotShot = await page.screenshot({ clip: plot, path: join(shots, 'plot.png') });
    return { problems, plot, svg: svgBox, series, legend, plotShot };
  } finally {
    await page.close();
  }
}

/** Pixels of a PNG within a small distance of `hex`: a series' own colour, not its anti-aliased edges. */
function pixelsOf(png: Buffer, hex: string): number {
  const image = PNG.sync.read(png);
  const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
  let count = 0;
  for (let i = 0; i < image.data.length; i += 4) {
    const distance =
      Math.abs((image.data[i] ?? 0) - (r ?? 0)) +
      Math.abs((image.data[i + 1] ?? 0) - (g ?? 0)) +
      Math.abs((image.data[i + 2] ?? 0) - (b ?? 0));
    if (distance <= 24) count += 1;
  }
  return count;
}

/** Within `outer`, give or take the pixels a border or a rounding takes. */
function expectInside(inner: Box, outer: Box, what: string): void {
  expect(inner.x, what).toBeGreaterThanOrEqual(outer.x - 3);
  expect(inner.y, what).toBeGreaterThanOrEqual(outer.y - 3);
  expect(inner.x + inner.width, what).toBeLessThanOrEqual(outer.x + outer.width + 3);
  expect(inner.y + inner.height, what).toBeLessThanOrEqual(outer.y + outer.height + 3);
}

describe('report.html, drawn in headless Chromium', () => {
  const shots = join(scratch, 'screenshots');

  function expectTablesDrawn(drawn: Drawn, markdown: string): void {
    expect(drawn.problems).toEqual([]);
    expect(drawn.requests).toEqual([]);
    expect(drawn.overflow).toEqual({ screen: 0, print: 0 });
    expect(drawn.tables.map((t) => t.rows)).toEqual(markdownTableShapes(markdown).map((s) => s.rows));
    for (const t of drawn.tables) {
      expect(t.width).toBeGreaterThan(50);
      expect(t.height).toBeGreaterThan(20 * t.rows);
    }
    const page = pixelVariety(drawn.page);
    expect(page.width).toBe(1280);
    expect(page.colours).toBeGreaterThan(8);
    expect(page.inked).toBeGreaterThan(0.01);
  }

  it('run: every table laid out with its rows, no console error, no request', async () => {
    const drawn = await draw(join(run.folder, 'report.html'), mkdtempSync(`${shots}-run-`));
    expectTablesDrawn(drawn, run.markdown);
    expect(drawn.charts).toEqual([]);
  });

  it("a failing case's matrix cell opens its case, with the history's witness", async () => {
    const { page, problems, requests } = await load(join(failing.folder, 'report.html'));
    try {
      expect(await page.locator('details.case[open]').count()).toBe(0);
      await page.locator('a.cell.mark-broke').first().click();
      const opened = page.locator('details.case[open]');
      expect(await opened.count()).toBe(1);
      expect(await opened.locator('summary').textContent()).toContain('contention/');
      const witness = opened.locator('pre').first();
      expect(await witness.isVisible()).toBe(true);
      expect(await witness.textContent()).toMatch(/reserve req-\d+ .* → HELD \(model: SOLD_OUT\)/);
      await page.screenshot({ path: join(mkdtempSync(`${shots}-failing-`), 'opened.png') });
      expect([problems, requests]).toEqual([[], []]);
    } finally {
      await page.close();
    }
  });

  it('the filters show only the cases of the status, design or scenario chosen, with no script', async () => {
    const { page } = await load(join(run.folder, 'report.html'));
    try {
      const shown = () => page.locator('details.case').filter({ visible: true }).count();
      expect(await shown()).toBe(run.report.cases.length);
      await page.locator('fieldset', { hasText: 'status' }).getByLabel('n/a', { exact: true }).check();
      expect(await shown()).toBe(run.report.cases.filter((c) => c.status === 'n/a').length);
      await page.locator('fieldset', { hasText: 'status' }).getByLabel('all', { exact: true }).check();
      await page.locator('fieldset', { hasText: 'design' }).getByLabel('hot-row', { exact: true }).check();
      expect(await shown()).toBe(run.report.cases.filter((c) => c.strategy === 'hot-row').length);
    } finally {
      await page.close();
    }
  });

  it('bench: both charts drew every series line, the tables their rows', async () => {
    const drawn = await draw(join(bench.folder, 'report.html'), mkdtempSync(`${shots}-bench-`));
    expectTablesDrawn(drawn, bench.markdown);
    const names = chartSeries(bench.report.bench, (e) => ({
      y: e.median.throughput,
      interval: undefined,
    })).map((s) => s.name);
    expect(drawn.charts).toHaveLength(2);
    for (const chart of drawn.charts) {
      expect(chart.width).toBeGreaterThan(300);
      expect(chart.height).toBeGreaterThan(150);
      expect(chart.series.map((s) => s.name)).toEqual(names);
      // A line from 1 to 3 clients spans some width even when its values are flat.
      for (const s of chart.series) expect(s.width, s.name).toBeGreaterThan(10);
    }
    expect(drawn.chartShots).toHaveLength(2);
    for (const shot of drawn.chartShots) {
      const chart = pixelVariety(shot);
      expect(chart.width).toBeGreaterThan(300);
      // Axes, grid, text and one colour per series (anti-aliased): far from a blank box.
      expect(chart.colours).toBeGreaterThan(names.length * 2);
      expect(chart.inked).toBeGreaterThan(0.02);
    }
  });

  it('the throughput chart shows every series in its own colour, inside the plot and off its axis', async () => {
    const example = join(scratch, 'example-bench');
    mkdirSync(example);
    writeBenchFiles(
      example,
      JSON.parse(readFileSync(new URL('../reports/examples/bench/report.json', import.meta.url), 'utf8')),
    );
    const many = join(scratch, 'many-designs');
    mkdirSync(many);
    writeFileSync(
      join(many, 'report.html'),
      renderHtmlReport('# many designs\n\n![throughput vs clients](throughput.svg)\n', {
        'throughput.svg': throughputChart(manyDesigns()),
      }),
    );
    for (const [folder, count] of [
      [example, 9],
      [many, 12],
    ] as const) {
      const chart = await drawChart(join(folder, 'report.html'), mkdtempSync(`${shots}-chart-`));
      expect(chart.problems).toEqual([]);
      expect(chart.series).toHaveLength(count);
      expect(new Set(chart.series.map((s) => s.stroke)).size).toBe(count);
      for (const s of chart.series) {
        expectInside(s.box, chart.plot, s.name);
        expect(s.box.y + s.box.height, `${s.name} clear of the axis`).toBeLessThan(
          chart.plot.y + chart.plot.height - 4,
        );
        expect(
          pixelsOf(chart.plotShot, s.stroke),
          `${s.name} (${s.stroke}) in the plot's pixels`,
        ).toBeGreaterThan(20);
      }
      expect(chart.legend.length).toBeGreaterThan(count);
      for (const label of chart.legend) expectInside(label, chart.svg, 'legend label');
    }
  });

  it('the committed examples as a reviewer sees them: the matrix, a cell opened on its witness, the sweep', async () => {
    const into = mkdtempSync(`${shots}-examples-`);
    const taken = await shootExamplesIn(await browserContext(), () => into);
    expect(taken.problems).toEqual([]);
    const matrix = pixelVariety(readFileSync(taken.files.matrix));
    expect(matrix.width).toBeGreaterThan(600);
    expect(matrix.colours).toBeGreaterThan(8);
    expect(taken.opened.summary).toMatch(/^◆ \S+\/\S+\n?$/);
    expect(taken.opened.witness).toMatch(/→ HELD \(model: SOLD_OUT\)/);
    expect(pixelVariety(readFileSync(taken.files.opened)).inked).toBeGreaterThan(0.02);
    expect(taken.sweep.series).toEqual(['150 clients']);
    expect(taken.sweep.ticks).toEqual(expect.arrayContaining(['1', '4', '16', '64', '256']));
    expect(pixelVariety(readFileSync(taken.files.sweep)).colours).toBeGreaterThan(8);
  });
});
