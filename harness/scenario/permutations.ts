/**
 * An interleaving case: the scenario's spec parsed once, its listed permutation judged, and with
 * `--permutations all` every other order of its steps (each session's own order kept) run on fresh
 * tables and reported; the case fails when any valid order fails. Kept for inspection, as a failed listed
 * order's are: the tables of the first other order that failed a case the listed order did not fail.
 */

import type { CaseSettings } from '../contract/case-settings.ts';
import type { RunDatabase } from '../database/database.ts';
import { allPermutations } from '../interleaving/all-permutations.ts';
import { InvalidPermutation } from '../interleaving/engine.ts';
import type { Permutation } from '../interleaving/permutation.ts';
import { RESERVATION_VERBS } from '../interleaving/reservation-verbs.ts';
import { parseSpec } from '../interleaving/spec-parser.ts';
import type { CaseResult, PermutationReport } from '../verdict/case-result.ts';
import type { CaseSpec } from './case-spec.ts';
import { driveInterleaving } from './drive-interleaving.ts';
import { onFreshTables } from './fresh-tables.ts';
import type { InterleavingScenario } from './scenario.ts';

interface ParsedInterleaving {
  listed: Permutation;
  all: Permutation[];
}

const parsed = new Map<string, ParsedInterleaving>();

/** The scenario's isolation spec: the one permutation it lists, and every order of its steps. */
function interleavingOf(scenario: InterleavingScenario): ParsedInterleaving {
  const known = parsed.get(scenario.id);
  if (known) return known;
  const spec = parseSpec(scenario.spec, `scenarios/${scenario.id}.ts`, [RESERVATION_VERBS]);
  const [listed, ...more] = spec.permutations;
  if (!listed || more.length > 0) {
    throw new Error(`scenario ${scenario.id}: its spec must list exactly one permutation (the one judged)`);
  }
  const all = [
    ...allPermutations(spec.sessions.map((s) => ({ name: s.name, steps: s.steps.map((t) => t.step) }))),
  ];
  const entry = { listed, all };
  parsed.set(scenario.id, entry);
  return entry;
}

const orderOf = (permutation: Permutation) => permutation.steps.map((s) => s.name).join(' ');

function summaryOf(result: CaseResult, permutation: Permutation): PermutationReport {
  return {
    order: orderOf(permutation),
    status: result.status === 'n/a' ? 'broken' : result.status,
    blocked: 'steps' in result ? (result.steps ?? []).filter((s) => s.blocked).map((s) => s.step) : [],
    outcomes: result.outcomes,
    ...(result.status === 'fail' || result.status === 'broken' ? { problems: result.problems } : {}),
    ...('keptSchema' in result && result.keptSchema ? { keptSchema: result.keptSchema } : {}),
  };
}

/**
 * One more order of the steps, on fresh tables; judged on everything but the listed order's blocking.
 * Its tables are kept only when it fails and `keepIfFailed`.
 */
async function permutationReport(
  db: RunDatabase,
  spec: CaseSpec,
  settings: CaseSettings,
  permutation: Permutation,
  keepIfFailed: boolean,
): Promise<PermutationReport> {
  try {
    const result = await onFreshTables(
      db,
      spec,
      { ...settings, keepFailed: keepIfFailed, keepAll: false },
      (on) => driveInterleaving(on, permutation, true),
      false,
    );
    return summaryOf(result, permutation);
  } catch (error: unknown) {
    if (!(error instanceof InvalidPermutation)) throw error;
    return { order: orderOf(permutation), status: 'invalid', blocked: [error.waitingStep], outcomes: {} };
  }
}

/** The listed permutation's result, failed when any other order failed, with every order reported. */
function withPermutations(listed: CaseResult, permutations: PermutationReport[]): CaseResult {
  if (listed.status !== 'pass' && listed.status !== 'fail') return listed;
  const failed = permutations.filter((p) => p.status === 'fail' || p.status === 'broken');
  const problems = failed.map((p) => `permutation ${p.order}: ${(p.problems ?? []).join('; ')}`);
  const valid = permutations.filter((p) => p.status !== 'invalid').length;
  const note = ` (${valid} permutations, ${failed.length} failed, ${permutations.length - valid} invalid)`;
  if (problems.length === 0 || listed.expect === 'violate') {
    return { ...listed, boundary: `${listed.boundary}${note}`, permutations };
  }
  const keptSchema = listed.keptSchema ?? permutations.find((p) => p.keptSchema)?.keptSchema;
  return {
    ...listed,
    status: 'fail',
    problems: [...listed.problems, ...problems],
    boundary: `${listed.boundary}${note}`,
    permutations,
    ...(keptSchema ? { keptSchema } : {}),
  };
}

export async function runInterleaving(
  db: RunDatabase,
  spec: CaseSpec,
  settings: CaseSettings,
  scenario: InterleavingScenario,
): Promise<CaseResult> {
  const { listed, all } = interleavingOf(scenario);
  const result = await onFreshTables(db, spec, settings, (on) => driveInterleaving(on, listed, false));
  if (settings.permutations === 'listed' || result.status === 'broken') return result;
  const others: PermutationReport[] = [];
  // A failing order fails the case only where the design should hold; one failing order's tables show it.
  let keepNextFailure = settings.keepFailed && result.expect === 'hold' && result.status === 'pass';
  for (const permutation of all) {
    if (orderOf(permutation) === orderOf(listed)) continue;
    const report = await permutationReport(db, spec, settings, permutation, keepNextFailure);
    if (report.keptSchema) keepNextFailure = false;
    others.push(report);
  }
  return withPermutations(result, [summaryOf(result, listed), ...others]);
}
