/**
 * The version matrix of `run --postgres 15,18`: per design and server version, pass / fail / n/a (with the
 * reason, such as a design's minimum version), and the interleaving steps seen blocked there. Lock
 * behaviour that changed between versions shows as different `blocked` cells of one design, never
 * averaged away. Built from the case results only (their `postgres` tag); empty for a run on one server.
 */
import { failsTheRun } from '../../../verdict/case-result.ts';
import type { CaseResult } from '../verdict/case-result.ts';

export interface VersionRow {
  strategy: string;
  /** The server version, as the server reports it (`15.18`). */
  postgres: string;
  /** `fail`: some case failed or broke; `n/a`: every case was n/a; else `pass`. */
  status: 'pass' | 'fail' | 'n/a';
  /** Why every case was n/a (each distinct reason once); with `n/a` only. */
  reason?: string;
  /** `scenario: step, step` for each interleaving case that saw steps blocked, in the cases' order. */
  blocked: string[];
  cases: number;
}

function blockedLine(c: CaseResult): string | undefined {
  const steps = ('steps' in c ? (c.steps ?? []) : []).filter((s) => s.blocked).map((s) => s.step);
  return steps.length > 0 ? `${c.scenario}: ${steps.join(', ')}` : undefined;
}

function rowOf(strategy: string, postgres: string, cases: readonly CaseResult[]): VersionRow {
  const skipped = cases.filter((c) => c.status === 'n/a');
  const blocked = cases.map(blockedLine).filter((line) => line !== undefined);
  const base = { strategy, postgres, blocked, cases: cases.length };
  if (cases.some(failsTheRun)) return { ...base, status: 'fail' };
  if (skipped.length < cases.length) return { ...base, status: 'pass' };
  const reasons = [...new Set(skipped.map((c) => ('reason' in c ? c.reason : '')))];
  return { ...base, status: 'n/a', reason: reasons.join('; ') };
}

export function versionRows(cases: readonly CaseResult[]): VersionRow[] {
  const groups = new Map<string, { strategy: string; postgres: string; cases: CaseResult[] }>();
  for (const c of cases) {
    if (c.postgres === undefined) continue;
    const key = `${c.strategy}\u0000${c.postgres}`;
    const group = groups.get(key) ?? { strategy: c.strategy, postgres: c.postgres, cases: [] };
    groups.set(key, group);
    group.cases.push(c);
  }
  return [...groups.values()].map((g) => rowOf(g.strategy, g.postgres, g.cases));
}
