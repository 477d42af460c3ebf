/**
 * Exploration as part of the verdict: one case per design, `explore/<id>`. A safe design passes when no
 * program failed; a finding fails it, with the smallest failing program written as a spec. A negative
 * control passes only when the explorer found it (any check failing is the bug it exists to show) and its
 * spec failed again on every replay; it fails when every program held. A finding is replayed from its spec file before it is reported, and the report
 * says how many replays failed again. An exploration that ran no program to its end judged nothing: it
 * fails as not exercised.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StrategyRef } from '../../strategies/contract.ts';
import { refusedNeed } from '../case/applicability.ts';
import type { CaseSettings } from '../contract/case-settings.ts';
import { caseNeeds } from '../contracts/reservation/case/capability-needs.ts';
import type {
  BrokenCase,
  CaseResult,
  MeasuredCase,
  SkippedCase,
} from '../contracts/reservation/verdict/case-result.ts';
import type { RunDatabase } from '../database/database.ts';
import { belowMinimum } from '../database/postgres-minimum.ts';
import type { ExplorationSummary } from '../verdict/case-result.ts';
import { type Exploration, type ExploreBudget, type ExploreProgress, explore } from './explorer.ts';
import { replaySpec } from './replay.ts';

export interface ExploreCaseOptions {
  seed: number;
  budget: ExploreBudget;
  /** Where a finding's spec is written (`<reports>/explore/`). */
  specDir: string;
  /** How many times a finding's spec is replayed to show it fails every time. */
  replays: number;
  /** Why this design's bug is beyond what a program can do (out-of-reach.ts): the case is n/a. */
  outOfReach?: string;
  onProgress?: (p: ExploreProgress) => void;
}

function notExploredCase(ref: StrategyRef, reason: string): SkippedCase {
  return {
    id: `explore/${ref.strategy.id}`,
    scenario: 'explore',
    strategy: ref.strategy.id,
    expect: ref.strategy.expect,
    status: 'n/a',
    outcomes: {},
    invariants: null,
    boundary: `n/a: ${reason}`,
    reason,
    coverage: { missing: [] },
  };
}

function summaryOf(e: Exploration, spec?: string, reproduced?: ExplorationSummary['reproduced']) {
  const { seed, programs, swept, invalid, broken, shrinks, ms, scope } = e;
  return {
    seed,
    programs,
    swept,
    ...(scope ? { scope } : {}),
    invalid,
    broken,
    shrinks,
    ms,
    ...(spec ? { spec } : {}),
    ...(reproduced ? { reproduced } : {}),
  };
}

/** `2747 programs of the scope (every one of up to 2 operations), 16 swept, 12 random, seed 2026`. */
function triedOf(e: Exploration): string {
  const scope = e.scope
    ? `${e.scope.programs} programs of the scope (${e.scope.completeLength > 0 ? `every one of up to ${e.scope.completeLength} operations` : 'no length complete'}), `
    : '';
  return `${scope}${e.swept} swept, ${e.programs - e.swept} random, seed ${e.seed}`;
}

function writeFinding(dir: string, ref: StrategyRef, seed: number, spec: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${ref.strategy.id}-seed${seed}.spec`);
  writeFileSync(path, spec);
  return path;
}

function notExercised(ref: StrategyRef, e: Exploration): BrokenCase {
  const problem = `not exercised: none of ${e.programs} programs ran to its end (${e.invalid} invalid schedules, ${e.broken} broken)`;
  const base = { id: `explore/${ref.strategy.id}`, scenario: 'explore', strategy: ref.strategy.id };
  return {
    ...base,
    expect: ref.strategy.expect,
    status: 'broken',
    outcomes: {},
    invariants: null,
    boundary: problem,
    problems: [problem],
  };
}

export async function exploreCase(
  db: RunDatabase,
  ref: StrategyRef,
  settings: CaseSettings,
  options: ExploreCaseOptions,
): Promise<CaseResult> {
  // A server older than the design needs fails every program on the SQL it lacks: n/a, as its cases are.
  // Its programs are interleavings: they need the lock view, as interleaving cases do.
  const skipped =
    options.outOfReach ??
    belowMinimum(ref.strategy, db.serverVersionNum) ??
    refusedNeed(caseNeeds(ref.strategy, { kind: 'interleaving' }, undefined), db.capabilities);
  if (skipped) return notExploredCase(ref, skipped);
  const e = await explore(db, ref, settings, options);
  const identity = {
    id: `explore/${ref.strategy.id}`,
    scenario: 'explore',
    strategy: ref.strategy.id,
    expect: ref.strategy.expect,
  };
  const tried = triedOf(e);
  if (!e.found) {
    if (e.lastPassed?.status !== 'pass') return notExercised(ref, e);
    const base: MeasuredCase = { ...e.lastPassed, ...identity, exploration: summaryOf(e) };
    if (ref.strategy.expect === 'hold')
      return { ...base, status: 'pass', problems: [], boundary: `explored: no finding (${tried})` };
    const problem = `NOT found by the explorer: every one of ${tried} held`;
    return { ...base, status: 'fail', problems: [problem], boundary: problem };
  }
  const path = writeFinding(options.specDir, ref, e.seed, e.found.spec);
  // The finding's own run kept its tables; a replay only counts whether it fails again.
  const quiet = { ...settings, keepFailed: false, keepAll: false };
  const replays = await replaySpec(db, ref, readFileSync(path, 'utf8'), path, quiet, options.replays);
  const reproduced = { failed: replays.filter((r) => r.status === 'fail').length, of: replays.length };
  const found = e.found.result;
  const checks = 'fired' in found ? found.fired.join(', ') : 'broken';
  const why = ('problems' in found ? found.problems : []).join('; ');
  const line = `explorer found (${e.found.foundAt}; ${tried}): ${checks} — ${why} (${path}, failed ${reproduced.failed} of ${reproduced.of} replays)`;
  if (found.status !== 'pass' && found.status !== 'fail')
    return {
      ...identity,
      status: 'broken',
      outcomes: {},
      invariants: null,
      boundary: line,
      problems: [line],
    };
  const base: MeasuredCase = { ...found, ...identity, exploration: summaryOf(e, path, reproduced) };
  // A control's finding counts only if its spec fails again every time: the verdict must not be luck.
  if (ref.strategy.expect === 'violate' && reproduced.failed === reproduced.of)
    return { ...base, status: 'pass', problems: [], boundary: `caught by the ${line}` };
  return { ...base, status: 'fail', problems: [line], boundary: line };
}
