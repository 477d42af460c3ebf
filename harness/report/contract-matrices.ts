/**
 * The one place the report's tables learn which contracts a report holds and how each reads its cases: per
 * contract that ran, in the contracts' order (harness/contracts/index.ts), its cases, its reading and its
 * matrix (ContractReport.matrix). Everything drawn from them (terminal, report.md, report.html, the
 * scorecard) is the same code for every contract.
 */
import { caseMatrix, type DetailCase, type DetailReading, type Matrix } from '../contract/case-matrix.ts';
import { CONTRACTS } from '../contracts/index.ts';
import type { Report } from './report-schema.ts';

export interface ContractMatrix {
  /** The contract's name in a heading (its ContractReport.matrix.name). */
  contract: string;
  /** What the contract promises, in a line. */
  promise: string;
  cases: readonly DetailCase[];
  reading: DetailReading;
  matrix: Matrix;
}

export function contractMatrices(report: Report): ContractMatrix[] {
  return CONTRACTS.flatMap((contract): ContractMatrix[] => {
    const cases = contract.report.casesOf(report) as readonly DetailCase[];
    if (cases.length === 0) return [];
    const { name, promise } = contract.report.matrix;
    // Each contract's reading takes its own cases only, which this section keeps together.
    const reading = contract.report.matrix.reading as DetailReading;
    return [{ contract: name, promise, cases, reading, matrix: caseMatrix(cases, reading) }];
  });
}
