/**
 * A contract's programs run as its spec cases, written once: each program written as a spec, run as the
 * contract's spec case in the program's order only (`--permutations listed`), judged as if the design
 * claimed to hold, so a program that fails is a finding; a finding's spec replayed the same way from its
 * file; and the `explore/<design>` cases that say a design was skipped or broke. A contract names its
 * spec parser, its spec writer and its case runner.
 */
import type { Arbitrary } from 'fast-check';
import { refusedNeed } from '../case/applicability.ts';
import { brokenCase, naCase } from '../case/unjudged-case.ts';
import type { CaseSettings } from '../contract/case-settings.ts';
import type { DesignBase } from '../contract/contract.ts';
import type {
  ContractExplore,
  ExploreIdentity,
  ProgramRun,
  ScopeLanguage,
} from '../contract/contract-explore.ts';
import type { RunDatabase } from '../database/database.ts';
import type { CaseResultBase } from '../verdict/case-result.ts';

/** What a contract's spec programs differ in: `R` its design, `S` its spec scenario, `P` its program. */
export interface SpecProgramParts<R, C, S, P> {
  /** A spec file's text as the contract's spec scenario. */
  parse(text: string, file: string): S;
  specText(program: P, header: readonly string[]): string;
  runCase(db: RunDatabase, ref: R, scenario: S, settings: CaseSettings): Promise<C>;
}

const listedOnly = (settings: CaseSettings): CaseSettings => ({ ...settings, permutations: 'listed' });

function runOf<C extends CaseResultBase>(result: C, spec: string): ProgramRun<C> {
  if (result.status === 'pass' || result.status === 'fail') return { kind: result.status, result, spec };
  if (result.problems?.some((p) => p.includes('invalid permutation:'))) return { kind: 'invalid', spec };
  return { kind: 'broken', result, spec };
}

/** The explorer's `run` and `replay` of a contract whose programs are its specs. */
function specProgramRunner<R, C extends CaseResultBase, S extends { id: string; explored?: true }, P>(
  parts: SpecProgramParts<R, C, S, P>,
) {
  /** The spec as the explorer runs it: one order, its own, whatever `--permutations` says. */
  const exploredScenario = (text: string, file: string): S => ({
    ...parts.parse(text, file),
    id: 'explore',
    explored: true,
  });
  return {
    async run(
      db: RunDatabase,
      ref: R,
      program: P,
      settings: CaseSettings,
      header: readonly string[],
    ): Promise<ProgramRun<C>> {
      const spec = parts.specText(program, header);
      return runOf(
        await parts.runCase(db, ref, exploredScenario(spec, 'explored.spec'), listedOnly(settings)),
        spec,
      );
    },
    async replay(
      db: RunDatabase,
      ref: R,
      text: string,
      file: string,
      settings: CaseSettings,
      times: number,
    ): Promise<C[]> {
      const scenario = exploredScenario(text, file);
      const results: C[] = [];
      for (let i = 0; i < times; i++)
        results.push(await parts.runCase(db, ref, scenario, listedOnly(settings)));
      return results;
    },
  };
}

/** What such a contract gives the explorer beside its spec parts. */
export interface SpecExploreParts<R, C, S, P> extends SpecProgramParts<R, C, S, P> {
  connections: number;
  scope(ref: R): ScopeLanguage<unknown, P>;
  random(ref: R): Arbitrary<P>;
}

/**
 * The contract's side of the explorer, but for its `explore/<design>` cases (exploreCasesOf): no sweep of
 * its own (its exhaustive scope races every pair of operations at every pause point the design declares),
 * and a design n/a on a server that refused what it needs.
 */
export function specExplore<
  R extends { design: Pick<DesignBase, 'needs'> },
  C extends CaseResultBase,
  S extends { id: string; explored?: true },
  P,
>(parts: SpecExploreParts<R, C, S, P>): Omit<ContractExplore<R, C, P>, 'skippedCase' | 'brokenCase'> {
  const { run, replay } = specProgramRunner(parts);
  return {
    connections: parts.connections,
    notExplored: (db, ref) => refusedNeed(ref.design.needs ?? [], db.capabilities),
    scope: parts.scope,
    random: parts.random,
    specText: parts.specText,
    run,
    replay,
  };
}

/** A contract's `explore/<design>` cases for a design the explorer skipped or that broke. */
export function exploreCasesOf<Contract extends string>(contract: Contract) {
  const identified = (identity: ExploreIdentity) => ({ ...identity, contract });
  return {
    skippedCase: (identity: ExploreIdentity, reason: string) => naCase(identified(identity), reason),
    brokenCase: (identity: ExploreIdentity, problem: string) => brokenCase(identified(identity), problem),
  };
}
