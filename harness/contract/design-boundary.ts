/**
 * A contract's boundary rows and its report sections, written once: per design, what its cases showed
 * (what failed, which check caught a control, or in how many scenarios it held and what one drill read),
 * and the markdown and terminal blocks of the contract's design and case tables. A contract names only
 * its noun, its drill scenario and what the harness read back.
 */
import type { CaseResultBase } from '../verdict/case-result.ts';
import { formatOutcomes } from '../verdict/case-result.ts';
import type { MarkdownBlock, TableData, TerminalBlock } from './contract.ts';

/** A design as its boundary row reads it. */
export interface BoundaryDesign {
  id: string;
  expect: 'hold' | 'violate';
  guarantee: string;
  caughtBy?: Readonly<Record<string, readonly string[]>>;
}

/** One design's row: how it stays correct, and what its cases showed. */
export interface DesignBoundaryRow {
  strategy: string;
  expect: 'hold' | 'violate';
  guarantee: string;
  /** `held in 4 of 4 … scenarios`, `caught by <check>`, or what broke. */
  shows: string;
  shownBy: string;
}

/** What a contract's boundary rows differ in. */
export interface BoundaryReading<C extends CaseResultBase> {
  /** What "held in n of m …" counts. */
  scenarios: string;
  /** The scenario whose case a holding design's row quotes, when it ran. */
  drill: string;
  /** What the harness read back in the drill case, after its outcomes (`; …`, or ''). */
  drillReads: (c: C) => string;
}

type Fired = { fired?: readonly string[] };

function showsOf<C extends CaseResultBase & Fired>(
  design: BoundaryDesign,
  own: readonly C[],
  reading: BoundaryReading<C>,
): Pick<DesignBoundaryRow, 'shows' | 'shownBy'> {
  const judged = own.filter((c) => c.status !== 'n/a');
  const failing = judged.filter((c) => c.status !== 'pass');
  if (failing.length > 0)
    return {
      shows: `FAILED: ${failing.map((c) => c.boundary).join('; ')}`,
      shownBy: failing.map((c) => c.id).join(', '),
    };
  if (design.expect === 'violate') {
    const fired = judged.flatMap((c) =>
      (c.fired ?? []).filter((f) => design.caughtBy?.[c.scenario]?.includes(f)),
    );
    return {
      shows: `caught by ${[...new Set(fired)].join(', ') || '-'}`,
      shownBy: judged.map((c) => c.id).join(', ') || '-',
    };
  }
  const drill = judged.find((c) => c.scenario === reading.drill) ?? judged[0];
  return {
    shows: `held in ${judged.length} of ${own.length} ${reading.scenarios}${drill ? ` (${drill.scenario}: ${formatOutcomes(drill.outcomes)}${reading.drillReads(drill)})` : ''}`,
    shownBy: drill?.id ?? '-',
  };
}

/** One row per design that ran a case, in the designs' order. */
export function designBoundaryRows<C extends CaseResultBase & Fired>(
  cases: readonly C[],
  designs: readonly BoundaryDesign[],
  reading: BoundaryReading<C>,
): DesignBoundaryRow[] {
  return designs
    .filter((d) => cases.some((c) => c.strategy === d.id))
    .map((d) => ({
      strategy: d.id,
      expect: d.expect,
      guarantee: d.guarantee,
      ...showsOf(
        d,
        cases.filter((c) => c.strategy === d.id),
        reading,
      ),
    }));
}

/** A contract's section of report.md and of the terminal: its design table, then its case table. */
export interface ContractSection {
  /** The markdown heading of the section. */
  heading: string;
  intro: string;
  /** The terminal's heading of the design table. */
  terminalHeading: string;
  /** The designs in columns; `withGuarantee`: how each stays correct too. */
  designTable: (withGuarantee: boolean) => TableData;
  caseTable: () => TableData;
}

export function sectionMarkdown(caseCount: number, section: ContractSection): MarkdownBlock[] {
  if (caseCount === 0) return [];
  return [section.heading, '', section.intro, '', section.designTable(true), '', section.caseTable(), ''];
}

export function sectionTerminal(caseCount: number, section: ContractSection): TerminalBlock[] {
  if (caseCount === 0) return [];
  return [section.terminalHeading, { table: section.designTable(false), caps: [30, 10, 60] }, ''];
}
