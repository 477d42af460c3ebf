/**
 * Screenshots of the committed example reports as a reviewer first sees them in a browser: the run's matrix,
 * the matrix cell of a caught control opened on its case (its witness on screen), and the bucket sweep's
 * throughput chart drawn against the knob. test/html-report.test.ts takes them into a scratch folder and
 * checks what they show; `npm run examples:screenshots` writes them beside the examples (reports/examples/).
 */
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BrowserContext } from 'playwright-core';
import { launchChromium } from './chromium.ts';

const EXAMPLES = fileURLToPath(new URL('../reports/examples/', import.meta.url));

export interface ExampleShots {
  /** The PNG files written, by what they show. */
  files: { matrix: string; opened: string; sweep: string };
  /** What the opened case showed: its summary line and its first preformatted block (the witness). */
  opened: { summary: string; witness: string };
  /** The sweep chart's series names and x tick labels. */
  sweep: { series: string[]; ticks: string[] };
  problems: string[];
}

/** `into`: the folder of each shot, by its example (the examples' own folders, or one scratch folder). */
export async function shootExamples(into: (example: string) => string): Promise<ExampleShots> {
  const browser = await launchChromium();
  try {
    return await shootExamplesIn(browser.context, into);
  } finally {
    await browser.close();
  }
}

/** The shots taken in a browser already started (the HTML report test's one browser). */
export async function shootExamplesIn(
  context: BrowserContext,
  into: (example: string) => string,
): Promise<ExampleShots> {
  const problems: string[] = [];
  const page = await context.newPage();
  try {
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
    await page.goto(pathToFileURL(join(EXAMPLES, 'run/report.html')).href, { waitUntil: 'load' });
    const files = {
      matrix: join(into('run'), 'matrix.png'),
      opened: join(into('run'), 'matrix-cell-opened.png'),
      sweep: join(into('bench-buckets'), 'sweep-chart.png'),
    };
    await page.locator('table.matrix').first().screenshot({ path: files.matrix });
    await page.locator('a.cell.mark-caught').first().click();
    const opened = page.locator('details.case[open]').first();
    await opened.screenshot({ path: files.opened });
    const openedText = {
      summary: (await opened.locator('summary').textContent()) ?? '',
      witness: (await opened.locator('pre').first().textContent()) ?? '',
    };
    await page.goto(pathToFileURL(join(EXAMPLES, 'bench-buckets/report.html')).href, { waitUntil: 'load' });
    const chart = page.locator('svg').first();
    await chart.screenshot({ path: files.sweep });
    const series = await chart
      .locator('path.series')
      .evaluateAll((paths) => paths.map((p) => p.getAttribute('data-series') ?? ''));
    const ticks = await chart.locator('text[text-anchor="middle"]').allTextContents();
    return { files, opened: openedText, sweep: { series, ticks }, problems };
  } finally {
    await page.close();
  }
}
