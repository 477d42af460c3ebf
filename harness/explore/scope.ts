/**
 * The exhaustive scope (Jackson's small scope hypothesis; QuickCheck state-machine testing and TLA+ model
 * checking bound the scope the same way): every program of a contract's alphabet up to a length, shortest
 * first, each once. Generic: the contract's alphabet says how a program grows by one operation, always
 * naming what it introduces in canonical order (the first new key is the first of its kind, …), so two
 * programs that differ only by renaming are one program — deduplication by symmetry — and the engine only
 * walks the tree, breadth first, so a budget of N programs covers whole lengths before longer ones.
 */

/** How a contract's programs grow: the contract's part of the exhaustive scope. */
export interface ScopeGrowth<T> {
  /** The program of no operations. */
  empty: T;
  /** Every program one operation longer than `program`, each named canonically. */
  grow(program: T): readonly T[];
  /** Whether the program is run as it stands, or only grown (what it sets up shows only later). */
  runnable(program: T): boolean;
}

/** Every runnable program of 1 to `maxLength` operations, shortest first, in the alphabet's order. */
export function* scopePrograms<T>(growth: ScopeGrowth<T>, maxLength: number): Generator<T> {
  let level: readonly T[] = [growth.empty];
  for (let length = 1; length <= maxLength && level.length > 0; length++) {
    const next = level.flatMap((program) => growth.grow(program));
    for (const program of next) if (growth.runnable(program)) yield program;
    level = next;
  }
}

/** How many runnable programs each length has, up to `maxLength` (index 0: length 1). */
export function scopeSizes<T>(growth: ScopeGrowth<T>, maxLength: number, length: (p: T) => number): number[] {
  const sizes = Array.from({ length: maxLength }, () => 0);
  for (const program of scopePrograms(growth, maxLength))
    sizes[length(program) - 1] = (sizes[length(program) - 1] ?? 0) + 1;
  return sizes;
}
