/**
 * Ratios between a design's series that differ in one setting: with ÷ without admission, and durable ÷
 * not durable (what the WAL flush at each commit costs). A ratio of medians, from series that both
 * passed; noise in either shows in their intervals, not here.
 */
import { commitsLine, type Durability } from '../database/durability.ts';
import type { BenchEntry } from './run-bench.ts';

const ratio = (numerator: BenchEntry, denominator: BenchEntry) =>
  Math.round((numerator.throughput / denominator.throughput) * 100) / 100;

/** Each `numerator` series beside the passing series `matches` pairs it with, as one ratio. */
function pairs(
  bench: readonly BenchEntry[],
  numerator: (e: BenchEntry) => boolean,
  matches: (e: BenchEntry, other: BenchEntry) => boolean,
): { numerator: BenchEntry; factor: number }[] {
  return bench
    .filter((e) => e.status === 'ok' && numerator(e))
    .flatMap((e) => {
      const other = bench.find((o) => o !== e && o.status === 'ok' && !numerator(o) && matches(e, o));
      return other && other.throughput > 0 ? [{ numerator: e, factor: ratio(e, other) }] : [];
    });
}

const sameDesignAndLoad = (a: BenchEntry, b: BenchEntry) =>
  a.strategy === b.strategy && a.clients === b.clients;

/** Throughput with admission ÷ without, per strategy, client count and durability where both ran. */
export function admissionFactors(
  bench: readonly BenchEntry[],
): { strategy: string; clients: number; durability: Durability; factor: number }[] {
  return pairs(
    bench,
    (e) => e.admission !== null,
    (a, b) => sameDesignAndLoad(a, b) && a.durability === b.durability,
  ).map(({ numerator: e, factor }) => ({
    strategy: e.strategy,
    clients: e.clients,
    durability: e.durability,
    factor,
  }));
}

/** Throughput durable ÷ not durable, per strategy, client count and admission where both ran. */
export function durabilityCosts(
  bench: readonly BenchEntry[],
): { strategy: string; clients: number; admission: string | null; factor: number }[] {
  return pairs(
    bench,
    (e) => e.durability === 'on',
    (a, b) => sameDesignAndLoad(a, b) && a.admission === b.admission,
  ).map(({ numerator: e, factor }) => ({
    strategy: e.strategy,
    clients: e.clients,
    admission: e.admission,
    factor,
  }));
}

/** The bench's commits line: the one durability all its series share, or that each says its own. */
export function benchCommitsLine(
  bench: readonly Pick<BenchEntry, 'durability'>[],
  settings: Readonly<Record<string, string>>,
): string {
  const kinds = new Set(bench.map((e) => e.durability));
  const [only] = kinds;
  if (kinds.size > 1) {
    return 'Commits: each series durable (synchronous_commit = on) or not (off), as its `commits` column says; the durability cost table divides the two';
  }
  return commitsLine(only ? { synchronous_commit: only } : settings);
}
