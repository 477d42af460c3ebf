import type { NodeIdentity } from '../../strategies/contract.ts';

/**
 * Node `index` of `count` in the case whose tables live in `schema`, in its `start`-th run: each restart
 * is a new incarnation (`<schema>/<name>#<start>`), so a design's in-memory state from an earlier run is
 * not found again (memory-quota drops it).
 */
export function nodeIdentity(schema: string, index: number, count: number, start = 1): NodeIdentity {
  const name = `node-${index + 1}`;
  return { name, index, count, incarnation: `${schema}/${name}#${start}` };
}
