/**
 * Every interleaving of several sessions' steps that keeps each session's own order — what the isolation
 * tester runs when a spec lists no permutation. The order is the tester's: each session's steps form a
 * pile, and at every position the piles are tried in session order, so the first interleaving runs the
 * first session's steps before the second's, and the last runs them in reverse session order.
 * There are (n₁ + … + nₖ)! / (n₁! ⋯ nₖ!) of them, so they are generated lazily.
 */
import type { Permutation, Step } from './permutation.ts';

export function* interleavings<T>(piles: readonly (readonly T[])[]): Generator<T[]> {
  const taken = piles.map(() => 0);
  const total = piles.reduce((n, pile) => n + pile.length, 0);
  const current: T[] = [];
  function* extend(): Generator<T[]> {
    if (current.length === total) {
      yield [...current];
      return;
    }
    for (const [i, pile] of piles.entries()) {
      const next = taken[i] ?? 0;
      if (next >= pile.length) continue;
      current.push(pile[next] as T);
      taken[i] = next + 1;
      yield* extend();
      taken[i] = next;
      current.pop();
    }
  }
  yield* extend();
}

/** Every permutation of the sessions' steps, each session's steps in the order given. */
export function* allPermutations(
  sessions: readonly { name: string; steps: readonly Step[] }[],
): Generator<Permutation> {
  const names = sessions.map((s) => s.name);
  for (const steps of interleavings(sessions.map((s) => s.steps))) yield { sessions: names, steps };
}
