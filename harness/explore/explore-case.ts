/**
 * Exploration as part of the verdict: one case per design, `explore/<id>`. A safe design passes when no
 * program failed; a finding fails it, with the smallest failing program written as a spec. A negative
 * control passes only when the explorer found it (any check failing is the bug it exists to show) and its
 * spec failed again on every replay; it fails when every program held. A finding is replayed from its spec
 * file before it is reported, and the report says how many replays failed again. An exploration that ran
 * no program to its end judged nothing: it fails as not exercised, and so does one in which a failover
 * program broke or could not run (those are few and fixed: explorer.ts runFailover). Generic: the design's contract gives
 * its programs, runs them and shapes its own n/a and broken cases (contract-explore.ts).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CaseSettings } from '../contract/case-settings.ts';
import type { DesignBase } from '../contract/contract.ts';
import type { ContractExplore, ExploreIdentity } from '../contract/contract-explore.ts';
import type { RunDatabase } from '../database/database.ts';
import type { CaseResultBase, ExplorationSummary } from '../verdict/case-result.ts';
import { type Exploration, type ExploreBudget, type ExploreProgress, explore } from './explorer.ts';

export interface ExploreCaseOptions {
  seed: number;
  budget: ExploreBudget;
  /** Where a finding's spec is written (`<reports>/explore/`). */
  specDir: string;
  /** How many times a finding's spec is replayed to show it fails every time. */
  replays: number;
  onProgress?: (p: ExploreProgress) => void;
}

/** A design to explore: its contract's side of the explorer, the design as loaded and as declared. */
export interface ExploreTarget<R, C extends CaseResultBase> {
  explore: ContractExplore<R, C>;
  ref: R;
  design: DesignBase;
}

function summaryOf<C>(e: Exploration<C>, spec?: string, reproduced?: ExplorationSummary['reproduced']) {
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
function triedOf<C>(e: Exploration<C>): string {
  const failedOver = e.failedOver ? `${e.failedOver} failed over, ` : '';
  const scope = e.scope
    ? `${e.scope.programs} programs of the scope (${e.scope.completeLength > 0 ? `every one of up to ${e.scope.completeLength} operations` : 'no length complete'}), `
    : '';
  return `${failedOver}${scope}${e.swept} swept, ${e.programs - e.swept} random, seed ${e.seed}`;
}

function writeFinding(dir: string, id: string, seed: number, spec: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${id}-seed${seed}.spec`);
  writeFileSync(path, spec);
  return path;
}

function notExercised<C>(e: Exploration<C>): string {
  return `not exercised: none of ${e.programs} programs ran to its end (${e.invalid} invalid schedules, ${e.broken} broken)`;
}

interface ExploreVerdict {
  exploration: ExplorationSummary;
  status: 'pass' | 'fail';
  problems: string[];
  boundary: string;
}

/** The case's result from a judged program's: its checks and counts, under the case's identity. */
function judged<C extends CaseResultBase>(result: C, identity: ExploreIdentity, verdict: ExploreVerdict): C {
  return { ...result, ...identity, ...verdict };
}

export async function exploreCase<R, C extends CaseResultBase>(
  db: RunDatabase,
  target: ExploreTarget<R, C>,
  settings: CaseSettings,
  options: ExploreCaseOptions,
): Promise<C> {
  const { design, ref } = target;
  const identity: ExploreIdentity = {
    id: `explore/${design.id}`,
    scenario: 'explore',
    strategy: design.id,
    expect: design.expect,
  };
  const failover = settings.failoverCluster !== undefined && target.explore.failover !== undefined;
  const skipped = target.explore.notExplored(db, ref, { failover });
  if (skipped) return target.explore.skippedCase(identity, skipped);
  const e = await explore({ db, ref, explore: target.explore, settings, designId: design.id }, options);
  const tried = triedOf(e);
  // A failover program that broke left an operation unjudged across a failover, whatever else was found.
  if (e.failoverBroken)
    return target.explore.brokenCase(identity, `not exercised: ${e.failoverBroken} (${tried})`);
  // Asked to fail over, an exploration in which no program did judged nothing of what it was asked.
  if (failover && !e.found && !e.failedOver)
    return target.explore.brokenCase(
      identity,
      `not exercised: no program failed over to its end (${e.invalid} invalid schedules, ${e.broken} broken)`,
    );
  if (!e.found) {
    if (e.lastPassed?.status !== 'pass') return target.explore.brokenCase(identity, notExercised(e));
    const exploration = summaryOf(e);
    if (design.expect === 'hold')
      return judged(e.lastPassed, identity, {
        exploration,
        status: 'pass',
        problems: [],
        boundary: `explored: no finding (${tried})`,
      });
    const problem = `NOT found by the explorer: every one of ${tried} held`;
    return judged(e.lastPassed, identity, {
      exploration,
      status: 'fail',
      problems: [problem],
      boundary: problem,
    });
  }
  return await reportedFinding(db, target, settings, options, { e, identity, tried });
}

/**
 * A finding, written as a spec and replayed from its file: a control's counts only if it fails again
 * every time (the verdict must not be luck); a safe design's fails the case.
 */
async function reportedFinding<R, C extends CaseResultBase>(
  db: RunDatabase,
  target: ExploreTarget<R, C>,
  settings: CaseSettings,
  options: ExploreCaseOptions,
  found: { e: Exploration<C>; identity: ExploreIdentity; tried: string },
): Promise<C> {
  const { e, identity, tried } = found;
  const finding = e.found as NonNullable<Exploration<C>['found']>;
  const path = writeFinding(options.specDir, identity.strategy, e.seed, finding.spec);
  // The finding's own run kept its tables; a replay only counts whether it fails again.
  const quiet = { ...settings, keepFailed: false, keepAll: false };
  const text = readFileSync(path, 'utf8');
  const replays = await target.explore.replay(db, target.ref, text, path, quiet, options.replays);
  const reproduced = { failed: replays.filter((r) => r.status === 'fail').length, of: replays.length };
  const result = finding.result;
  const { fired } = result as { fired?: readonly string[] };
  const checks = result.status === 'pass' || result.status === 'fail' ? (fired ?? []).join(', ') : 'broken';
  const why = (result.problems ?? []).join('; ');
  const line = `explorer found (${finding.foundAt}; ${tried}): ${checks} — ${why} (${path}, failed ${reproduced.failed} of ${reproduced.of} replays)`;
  if (result.status !== 'pass' && result.status !== 'fail') return target.explore.brokenCase(identity, line);
  const exploration = summaryOf(e, path, reproduced);
  if (identity.expect === 'violate' && reproduced.failed === reproduced.of)
    return judged(result, identity, {
      exploration,
      status: 'pass',
      problems: [],
      boundary: `caught by the ${line}`,
    });
  return judged(result, identity, {
    exploration,
    status: 'fail',
    problems: [line],
    boundary: line,
  });
}
