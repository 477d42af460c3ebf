/**
 * report.html: report.md rendered as one self-contained page for readers who open reports outside a code
 * host. It is made from the Markdown itself, so its tables are report.md's tables (built once, in
 * result-tables.ts and bench-report.ts) and can never disagree with them; the SVG charts the Markdown
 * links to are inlined, the CSS is inline, there are no scripts, and a Content-Security-Policy forbids
 * every request, so the file reads the same offline. html-sections.ts adds a table of contents, collapses
 * long tables and each case of a run's case details, and filters those by design, scenario and status.
 *
 * All text is escaped: raw HTML in the Markdown is shown as text (only a bare `<br>` inside a cell is kept
 * as a line break), links and images that name a scheme or another host are left as plain text, and an
 * image is drawn only when it is an SVG chart from the report's folder.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import markdownIt, { type MarkdownIt } from 'markdown-it';
import { caseFilters, escapeHtml, type SectionOptions, sectionRules, tocHtml } from './html-sections.ts';

/** Chart file name (as report.md links it, e.g. `throughput.svg`) → its SVG text. */
export type InlineCharts = Readonly<Record<string, string>>;

/** A link or image target inside the report's folder: no scheme (`http:`, `data:`, …) and no `//host`. */
const isLocal = (url: string) => !/^[a-z][a-z0-9+.-]*:/i.test(url.trim()) && !/^[\\/]{2}/.test(url.trim());

/** The charts this module writes itself (charts.ts): a bare `<svg>` with no script, link or outside reference. */
function inlineableSvg(svg: string): string | undefined {
  const body = svg.replace(/^\uFEFF?\s*(<\?xml[^>]*\?>\s*)?(<!DOCTYPE[^>]*>\s*)?/i, '').trimEnd();
  if (!/^<svg[\s>]/.test(body) || !body.endsWith('</svg>')) return undefined;
  if (/<script|<foreignObject|\shref\s*=|:href\s*=|url\(|@import|\son[a-z]+\s*=/i.test(body))
    return undefined;
  return body;
}

type Toc = Parameters<typeof sectionRules>[2];

function markdownRenderer(charts: InlineCharts, options: SectionOptions, toc: Toc): MarkdownIt {
  const md = markdownIt('default', { html: false, linkify: false, typographer: false });
  sectionRules(md, options, toc);
  md.validateLink = isLocal;
  md.renderer.rules.image = (tokens, idx, options, env, self) => {
    const token = tokens[idx];
    const alt = token ? self.renderInlineAsText(token.children ?? [], options, env) : '';
    const src = String(token?.attrGet('src') ?? '');
    const svg = Object.hasOwn(charts, src) ? inlineableSvg(charts[src] ?? '') : undefined;
    if (!svg) return `<span class="missing-chart">[${escapeHtml(alt || src)}]</span>`;
    return `<span class="chart">${svg.replace(/^<svg/, `<svg role="img" aria-label="${escapeHtml(alt)}"`)}</span>`;
  };
  // Wide tables scroll inside their own box instead of widening the page (on paper, where nothing
  // scrolls, their cells wrap instead: STYLE's print rules).
  md.renderer.rules.table_open = (tokens, idx, options, _env, self) =>
    `<div class="table">${self.renderToken(tokens, idx, options)}`;
  md.renderer.rules.table_close = (tokens, idx, options, _env, self) =>
    `${self.renderToken(tokens, idx, options)}</div>`;
  // The one piece of HTML a Markdown table cell needs for a line break; anything else stays escaped text.
  md.inline.ruler.before('html_inline', 'line_break_tag', (state, silent) => {
    const match = /^<br\s*\/?>/i.exec(state.src.slice(state.pos));
    if (!match) return false;
    if (!silent) state.push('html_inline', '', 0).content = '<br>';
    state.pos += match[0].length;
    return true;
  });
  return md;
}

const STYLE = `
:root { color-scheme: light; }
body { margin: 0; background: #fff; color: #1f2328; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif; }
main { max-width: 1200px; margin: 0 auto; padding: 24px 32px 48px; }
h1 { font-size: 1.9em; border-bottom: 1px solid #d1d9e0; padding-bottom: .3em; }
h2 { font-size: 1.4em; border-bottom: 1px solid #d1d9e0; padding-bottom: .3em; margin-top: 1.6em; }
code, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 90%; }
code { background: #eff1f3; border-radius: 4px; padding: .1em .35em; }
pre { background: #f6f8fa; padding: 12px; overflow-x: auto; border-radius: 6px; }
pre code { background: none; padding: 0; }
.table { overflow-x: auto; margin: 12px 0; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border: 1px solid #d1d9e0; padding: 4px 8px; vertical-align: top; text-align: left; }
th { background: #f6f8fa; }
td:first-child { white-space: nowrap; }
p, li { overflow-wrap: break-word; }
tbody tr:nth-child(2n) { background: #f9fafb; }
.chart { display: block; margin: 12px 0; }
.chart svg { box-sizing: border-box; max-width: 100%; height: auto; border: 1px solid #d1d9e0; }
.missing-chart { color: #9a6700; }
footer { margin-top: 32px; color: #59636e; font-size: 12px; }
.toc { background: #f6f8fa; border: 1px solid #d1d9e0; border-radius: 6px; padding: 8px 16px; margin: 16px 0; }
.toc ol { margin: 4px 0; padding-left: 20px; columns: 2; }
details.long-table > summary, details.case > summary { cursor: pointer; color: #0969da; }
details.case { border-top: 1px solid #d1d9e0; padding: 2px 0; }
details.case > summary h3 { display: inline; font-size: 1em; margin: 0; }
details.case[open] > summary h3 { font-size: 1.1em; }
.case-body { padding: 0 0 8px 16px; scroll-margin-top: 3em; }
.case-body li, .case-body li p { margin: 0; }
.case-body pre { margin: 4px 0; }
table.matrix { font-size: 12px; }
table.matrix th:not(:first-child) { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap; padding: 6px 2px; }
table.matrix td { text-align: center; white-space: nowrap; padding: 2px 4px; }
table.matrix td:first-child { text-align: left; }
a.cell { text-decoration: none; font-weight: 600; }
.mark-held { color: #1a7f37; }
.mark-boundary { color: #9a6700; }
.mark-caught { color: #0550ae; }
.mark-broke, .mark-broken { color: #cf222e; }
a.mark-broke, a.mark-broken { background: #ffebe9; padding: 0 2px; }
.mark-not-covered, .mark-sits-out { color: #8c959f; }
.filters { display: flex; flex-wrap: wrap; gap: 8px; margin: 8px 0 16px; }
.filters fieldset { border: 1px solid #d1d9e0; border-radius: 6px; max-height: 9em; overflow-y: auto; font-size: 12px; }
.filters label { display: block; white-space: nowrap; }
@media print {
  main { max-width: none; padding: 0; }
  .table { overflow: visible; }
  table { font-size: 10px; }
  th, td, td:first-child { padding: 2px 3px; white-space: normal; overflow-wrap: anywhere; }
}
`;

/** A complete HTML page from report.md's text, the SVG charts it links to and a run's cases for the filters. */
export function renderHtmlReport(
  markdown: string,
  charts: InlineCharts = {},
  options: SectionOptions = {},
): string {
  const toc: Toc = [];
  const md = markdownRenderer(charts, options, toc);
  const body = md.renderer.render(md.parse(markdown, {}), md.options, {}).trimEnd();
  const filters = options.cases ? caseFilters(options.cases).css : '';
  const [title, ...rest] = body.split(/(?<=<\/h1>)/);
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    // No request of any kind (fonts, images, scripts, frames): what is not in this file is not shown.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(toc.find((h) => h.level === 1)?.text ?? 'reservebench report')}</title>`,
    `<style>${STYLE}${filters}</style>`,
    '</head>',
    '<body>',
    '<main>',
    ...(rest.length > 0 ? [title, tocHtml(toc), rest.join('')] : [body]),
    '<footer>Rendered from report.md beside this file; report.json holds every figure.</footer>',
    '</main>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** Writes `<folder>/report.html` from the `report.md` and `*.svg` charts already written there. */
export function writeHtmlReport(folder: string, options: SectionOptions = {}): void {
  const markdown = readFileSync(join(folder, 'report.md'), 'utf8');
  const charts: Record<string, string> = {};
  for (const name of readdirSync(folder)) {
    if (name.endsWith('.svg')) charts[name] = readFileSync(join(folder, name), 'utf8');
  }
  writeFileSync(join(folder, 'report.html'), renderHtmlReport(markdown, charts, options));
}
