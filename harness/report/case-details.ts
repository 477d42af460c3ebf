/**
 * report.md's last section before its sources: every case under a heading of its own, which the matrix's
 * cells link to — its mark and verdict, what the contract counted, the checks that fired, the problems, the
 * history's witness when it found one, the files that reproduce it and the command that runs it again.
 * Generic over contracts: what a contract counts comes from its reading (`facts`).
 */
import {
  type CellMark,
  caseMark,
  type DetailCase,
  type DetailHistory,
  type DetailReading,
  MARKS,
} from '../contract/case-matrix.ts';
import type { Report } from './report-schema.ts';

/** The most witness lines a case shows; report.json keeps them all. */
const WITNESS_LINES = 12;

type Sources = NonNullable<Report['sources']>;

/** What `--strategy` takes for a design: a built-in's id, else the file it was loaded from. */
function designArgument(design: string, sources: Sources): string {
  const file = sources.find((s) => s.kind === 'design' && s.id === design)?.file;
  return file && !file.startsWith('strategies/') ? file : design;
}

/** The command that runs this one case again. */
export function rerunCommand(c: DetailCase, sources: Sources): string {
  const scenarioFile = sources.find((s) => s.kind === 'scenario' && s.id === c.scenario)?.file;
  const spec = c.exploration?.spec ?? (scenarioFile?.endsWith('.spec') ? scenarioFile : undefined);
  return [
    'npx reservebench run',
    `--strategy ${designArgument(c.strategy, sources)}`,
    spec ? `--spec ${spec}` : `--scenario ${c.scenario}`,
    ...(c.isolation ? [`--isolation ${c.isolation}`] : []),
    ...(c.postgres ? [`--postgres ${c.postgres.split('.')[0]}`] : []),
  ].join(' ');
}

function historyLines(history: DetailHistory | undefined): string[] {
  if (!history) return [];
  if (history.status === 'unchecked')
    return [`- history: unchecked (${history.reason ?? 'no reason given'})`];
  if (history.status === 'linearizable')
    return [`- history: linearizable (${history.operations} operations, ${history.parts} part(s))`];
  const witness = history.witness ?? [];
  return [
    `- history: **not linearizable** — ${history.summary ?? ''}`,
    '',
    '  ```',
    ...witness
      .slice(0, WITNESS_LINES)
      .map(
        (w) =>
          `  ${w.at.toFixed(1).padStart(8)} ms  ${w.session.padEnd(8)} ${w.call} → ${w.answer}${w.modelAnswers ? ` (model: ${w.modelAnswers})` : ''}`,
      ),
    ...(witness.length > WITNESS_LINES ? [`  … ${witness.length - WITNESS_LINES} more in report.json`] : []),
    '  ```',
    '',
  ];
}

function caseLines<C extends DetailCase>(
  c: C,
  mark: CellMark,
  reading: DetailReading<C>,
  sources: Sources,
): string[] {
  const scenarioFile = sources.find((s) => s.kind === 'scenario' && s.id === c.scenario)?.file;
  const reproduce = c.exploration?.spec ?? scenarioFile;
  return [
    `### ${caseHeading(c.id, mark)}`,
    '',
    `${MARKS[mark].symbol} ${mark} — expect ${c.expect}, status ${c.status}${c.durationMs !== undefined ? `, ${(c.durationMs / 1000).toFixed(2)} s` : ''}: ${c.boundary}`,
    '',
    ...(c.reason ? [`- reason: ${c.reason}`] : []),
    ...reading.facts(c).map((fact) => `- ${fact}`),
    ...(c.fired && c.fired.length > 0 ? [`- fired: ${c.fired.map((f) => `\`${f}\``).join(', ')}`] : []),
    ...(c.problems ?? []).map((p) => `- problem: ${p}`),
    ...historyLines(c.history),
    ...(c.keptSchema ? [`- tables kept in schema \`${c.keptSchema}\``] : []),
    ...(reproduce ? [`- reproduced by: \`${reproduce}\``] : []),
    ...(c.status === 'n/a' ? [] : [`- run it again: \`${rerunCommand(c, sources)}\``]),
    '',
  ];
}

/** A case's heading: its mark and its id, `◆ \`contention/check-then-act\``. */
export function caseHeading(id: string, mark: CellMark): string {
  return `${MARKS[mark].symbol} \`${id}\``;
}

/** The section: one heading per case, in the report's order. */
export function caseDetailLines<C extends DetailCase>(
  cases: readonly C[],
  reading: DetailReading<C>,
  sources: Sources,
): string[] {
  return cases.flatMap((c) => caseLines(c, caseMark(c, reading), reading, sources));
}
