/**
 * What report.html adds to report.md's rendering, on markdown-it's tokens: every heading the anchor GitHub
 * gives it (so report.md's links work in both), a table of contents of the sections, a table longer than a
 * screen collapsed, the matrix's grid compact with each cell coloured by its mark, and each case of the case
 * details collapsed under its heading, tagged with its design, scenario and status for the filters. The
 * filters are radio buttons and CSS rules (`:has()`): the page stays free of scripts.
 */
import type { MarkdownIt, StateCore, Token } from 'markdown-it';
import { type CellMark, MARKS } from '../contract/case-matrix.ts';
import { slugger } from './heading-slug.ts';

/** A case as the filters see it, by the anchor of its heading. */
export interface HtmlCase {
  design: string;
  scenario: string;
  status: string;
  mark: CellMark;
}

export type HtmlCases = ReadonlyMap<string, HtmlCase>;

/** A table with more body rows than this is collapsed under a line saying how many it has. */
const LONG_TABLE = 30;

export const escapeHtml = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

const MARK_CLASSES: Readonly<Record<string, CellMark>> = Object.fromEntries(
  (Object.keys(MARKS) as CellMark[]).map((mark) => [MARKS[mark].symbol, mark]),
);
const markClass = (mark: CellMark) => `mark-${mark.replace(/ /g, '-')}`;

function html(state: StateCore, content: string): Token {
  const token = new state.Token('html_block', '', 0);
  token.content = content;
  return token;
}

const headingText = (tokens: readonly Token[], at: number) =>
  (tokens[at + 1]?.children ?? []).map((t) => t.content).join('');

/** Every heading's anchor, as GitHub names them, in the document's order. */
function anchorHeadings(tokens: Token[]): { level: number; text: string; id: string }[] {
  const slug = slugger();
  const headings = [];
  for (const [i, token] of tokens.entries()) {
    if (token.type !== 'heading_open') continue;
    const text = headingText(tokens, i);
    const id = slug(text);
    token.attrSet('id', id);
    headings.push({ level: Number(token.tag.slice(1)), text, id });
  }
  return headings;
}

/** Long tables collapsed; a matrix's table (under a `Matrix` heading) marked for its own style. */
function foldTables(state: StateCore): Token[] {
  const out: Token[] = [];
  let section = '';
  let folded = false;
  for (const [i, token] of state.tokens.entries()) {
    if (token.type === 'heading_open' && token.tag === 'h2') section = headingText(state.tokens, i);
    if (token.type === 'table_open') {
      if (section.startsWith('Matrix')) token.attrJoin('class', 'matrix');
      const end = state.tokens.findIndex((t, j) => j > i && t.type === 'table_close');
      const rows = state.tokens.slice(i, end).filter((t) => t.type === 'tr_open').length - 1;
      folded = rows > LONG_TABLE;
      if (folded)
        out.push(
          html(state, `<details class="long-table"><summary>${rows} rows: show the table</summary>\n`),
        );
    }
    out.push(token);
    if (token.type === 'table_close' && folded) out.push(html(state, '</details>\n'));
  }
  return out;
}

/** Radio buttons for one dimension of the case filters, and the CSS rules that hide the cases it excludes. */
function filterGroup(name: string, values: readonly string[]): { inputs: string; css: string } {
  const id = (i: number | 'all') => `filter-${name}-${i}`;
  const inputs = [
    `<fieldset><legend>${name}</legend>`,
    `<label><input type="radio" name="filter-${name}" id="${id('all')}" checked> all</label>`,
    ...values.map(
      (v, i) => `<label><input type="radio" name="filter-${name}" id="${id(i)}"> ${escapeHtml(v)}</label>`,
    ),
    '</fieldset>',
  ].join('\n');
  const css = values
    .map((_, i) => `body:has(#${id(i)}:checked) .case:not([data-${name}="${i}"]) { display: none; }`)
    .join('\n');
  return { inputs, css };
}

/** The filters over the case details: by design, scenario and status. */
export function caseFilters(cases: HtmlCases): { inputs: string; css: string } {
  const all = [...cases.values()];
  const groups = (['design', 'scenario', 'status'] as const).map((key) =>
    filterGroup(key, [...new Set(all.map((c) => c[key]))]),
  );
  return {
    inputs: `<div class="filters">${groups.map((g) => g.inputs).join('\n')}</div>`,
    css: groups.map((g) => g.css).join('\n'),
  };
}

/** Each case heading (h3 after the case details' h2) and what follows it, collapsed and tagged. */
function foldCases(state: StateCore, cases: HtmlCases, detailsHeading: string, filters: string): Token[] {
  const values = (key: 'design' | 'scenario' | 'status') => [
    ...new Set([...cases.values()].map((c) => c[key])),
  ];
  const index = { design: values('design'), scenario: values('scenario'), status: values('status') };
  const tokens = state.tokens;
  const out: Token[] = [];
  let inDetails = false;
  let open = false;
  const close = () => {
    if (open) out.push(html(state, '</div></details>\n'));
    open = false;
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as Token;
    if (token.type === 'heading_open' && token.tag === 'h2') {
      close();
      inDetails = headingText(tokens, i) === detailsHeading;
    }
    const id = String(token.attrGet('id') ?? '');
    const c = cases.get(id);
    if (inDetails && token.type === 'heading_open' && token.tag === 'h3' && c) {
      close();
      const data = (['design', 'scenario', 'status'] as const)
        .map((key) => `data-${key}="${index[key].indexOf(c[key])}"`)
        .join(' ');
      // The anchor moves to the body: a link to it opens the collapsed case.
      token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'id');
      out.push(html(state, `<details class="case ${markClass(c.mark)}" ${data}><summary>`));
      out.push(...tokens.slice(i, i + 3));
      out.push(html(state, `</summary><div class="case-body" id="${escapeHtml(id)}">\n`));
      open = true;
      i += 2;
      continue;
    }
    out.push(token);
    if (inDetails && token.type === 'heading_close' && token.tag === 'h2') out.push(html(state, filters));
  }
  close();
  return out;
}

export interface SectionOptions {
  cases?: HtmlCases | undefined;
  /** The h2 heading the case details are under. */
  detailsHeading?: string | undefined;
}

/** Installs the rules on `md`; the table of contents is filled in as the document is parsed. */
export function sectionRules(
  md: MarkdownIt,
  options: SectionOptions,
  toc: { level: number; text: string; id: string }[],
): void {
  md.core.ruler.push('reservebench_sections', (state) => {
    toc.push(...anchorHeadings(state.tokens));
    state.tokens = foldTables(state);
    if (options.cases && options.detailsHeading) {
      const filters = caseFilters(options.cases).inputs;
      state.tokens = foldCases(state, options.cases, options.detailsHeading, filters);
    }
  });
  const link = md.renderer.rules.link_open;
  md.renderer.rules.link_open = (tokens, idx, opts, env, self) => {
    const mark = MARK_CLASSES[(tokens[idx + 1]?.content ?? '').slice(0, 1)];
    if (mark) tokens[idx]?.attrJoin('class', `cell ${markClass(mark)}`);
    return link ? link(tokens, idx, opts, env, self) : self.renderToken(tokens, idx, opts);
  };
}

/** The table of contents: the h2 sections, linked. */
export function tocHtml(toc: readonly { level: number; text: string; id: string }[]): string {
  const items = toc
    .filter((h) => h.level === 2)
    .map((h) => `<li><a href="#${escapeHtml(h.id)}">${escapeHtml(h.text)}</a></li>`);
  return items.length > 1 ? `<nav class="toc"><strong>Contents</strong><ol>${items.join('')}</ol></nav>` : '';
}
