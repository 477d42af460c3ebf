/**
 * The report of a contract whose cases end in counted outcomes and a few figures the harness read back,
 * written once: its design table and its case table (report.md and the terminal), its line per case while
 * the run goes on, and its fields of report.json. A contract names its section, its fields, its drill and
 * what it read back; the rows and blocks are the same for each.
 */
import type { ZodType } from 'zod';
import { type CaseResultBase, formatOutcomes, statusMark } from '../verdict/case-result.ts';
import { caseMatrix, type DetailReading } from './case-matrix.ts';
import type { ContractReport, TableData } from './contract.ts';
import {
  type BoundaryDesign,
  type BoundaryReading,
  type ContractSection,
  type DesignBoundaryRow,
  designBoundaryRows,
  sectionMarkdown,
  sectionTerminal,
} from './design-boundary.ts';
import { designColumnsTable } from './design-columns.ts';

type Fired = { fired?: readonly string[] };

/** What one such contract's report differs in. */
export interface OutcomeReportParts<
  C extends CaseResultBase & Fired,
  F,
  S = Readonly<Record<string, ZodType>>,
> {
  /** The zod shape of the contract's fields of report.json (report-schema.ts joins every contract's). */
  shape: S;
  /** The fields of report.json: the cases and the designs' boundary rows, under the contract's own names. */
  fields: (cases: readonly C[], boundary: DesignBoundaryRow[]) => F;
  casesOf: (fields: F) => readonly C[];
  boundaryOf: (fields: F) => readonly DesignBoundaryRow[];
  boundary: BoundaryReading<C>;
  reading: DetailReading<C>;
  section: Pick<ContractSection, 'heading' | 'intro' | 'terminalHeading'>;
  /** The case table's column of what the harness read back, and its cell (`-` when it read nothing). */
  readBack: { header: string; cell: (c: C) => string };
  /** A case's line: the word before its outcomes, and what the harness read back after them, if anything. */
  line: { label: string; reads: (c: C) => string | undefined };
  matrix: { name: string; promise: string };
}

/** The cases that ran (n/a ones are left out, as the report lists them on one line elsewhere). */
function caseTable<C extends CaseResultBase & Fired, F, S>(
  parts: OutcomeReportParts<C, F, S>,
  cases: readonly C[],
): TableData {
  return {
    headers: ['case', 'expect', 'status', 'outcomes', parts.readBack.header, 'verdict'],
    rows: cases
      .filter((c) => c.status !== 'n/a')
      .map((c) => [c.id, c.expect, c.status, formatOutcomes(c.outcomes), parts.readBack.cell(c), c.boundary]),
  };
}

function section<C extends CaseResultBase & Fired, F, S>(
  parts: OutcomeReportParts<C, F, S>,
  fields: F,
): ContractSection {
  const cases = parts.casesOf(fields);
  return {
    ...parts.section,
    designTable: (withGuarantee) =>
      designColumnsTable(parts.boundaryOf(fields), caseMatrix(cases, parts.reading), withGuarantee),
    caseTable: () => caseTable(parts, cases),
  };
}

/** The contract's ContractReport from its parts (its shape kept as typed, for report.json's type). */
export function outcomeReport<
  R extends { design: BoundaryDesign },
  C extends CaseResultBase & Fired,
  F,
  S extends Readonly<Record<string, ZodType>>,
>(parts: OutcomeReportParts<C, F, S>): ContractReport<R, C, F> & { readonly shape: S } {
  return {
    shape: parts.shape,
    fields: (cases, refs) =>
      parts.fields(
        cases,
        designBoundaryRows(
          cases,
          refs.map((r) => r.design),
          parts.boundary,
        ),
      ),
    casesOf: parts.casesOf,
    markdown: (fields) => sectionMarkdown(parts.casesOf(fields).length, section(parts, fields)),
    terminal: (fields) => sectionTerminal(parts.casesOf(fields).length, section(parts, fields)),
    caseLine: (c) => {
      const reads = parts.line.reads(c);
      const after = reads === undefined ? '' : ` · ${reads}`;
      return `${statusMark(c.status)} ${c.id} (${c.expect}) ${parts.line.label}: ${formatOutcomes(c.outcomes)}${after} — ${c.boundary}`;
    },
    matrix: { ...parts.matrix, reading: parts.reading },
  };
}
