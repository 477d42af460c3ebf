/**
 * A contract's designs in columns drawn from its matrix (case-matrix.ts): per design how many cells held of
 * those measured, and where it broke (each scenario with the check that showed it).
 */
import { findingLines, type Matrix } from './case-matrix.ts';
import type { TableData } from './contract.ts';

/** A design's row drawn from its matrix row: cells held of cells measured, and what the others showed. */
export function designColumnsTable(
  designs: readonly { strategy: string; expect: string; guarantee: string }[],
  matrix: Matrix,
  withGuarantee = true,
): TableData {
  return {
    headers: [
      'design',
      ...(withGuarantee ? ['expect', 'how it stays correct'] : []),
      'held (✓)',
      'breaks (scenario: check)',
    ],
    rows: designs.map((d) => {
      const cells = Object.values(matrix.cells[d.strategy] ?? {});
      const measured = cells.filter((c) => c.mark !== 'sits out' && c.mark !== 'not covered');
      const held = measured.filter((c) => c.mark === 'held').length;
      return [
        d.strategy,
        ...(withGuarantee ? [d.expect, d.guarantee] : []),
        d.expect === 'violate' ? 'control' : `${held} of ${measured.length}`,
        findingLines(matrix, d.strategy).join('\n') || (d.expect === 'violate' ? 'NOT caught' : 'none'),
      ];
    }),
  };
}
