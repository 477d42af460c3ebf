/**
 * A node's in-memory count for the in-memory quota design (memory-quota-design.ts): the units each sku has
 * left on this node, per incarnation (a restart starts from nothing), and the sales taken from it whose
 * transactions have not settled yet.
 *
 * A node drops its count when a sale's outcome goes unknown (its connection went away) and rebuilds it from
 * the ledger. The rebuild waits until none of the node's sales is in flight: a sale taken from the dropped
 * count may still commit (a commit waiting for its synchronous standby when a switchover ends its session
 * lands all the same), and a ledger read before it lands would count that unit as unsold — sold twice.
 * Nothing is taken from a dropped count (`takeUnit` answers `dropped`), so once those sales have settled
 * the ledger holds every sale the node made.
 */

export interface NodeCount {
  /** Units the node can still sell, per sku. */
  readonly units: Map<string, number>;
  /** Set once the node dropped this count: nothing may be taken from it any more. */
  dropped: boolean;
  readonly node: NodeState;
}

interface NodeState {
  count?: Promise<NodeCount>;
  /** Units taken from a count of this incarnation whose transaction has not settled (answered or failed). */
  inFlight: number;
  /** Rebuilds waiting for `inFlight` to reach 0. */
  waiting: (() => void)[];
}

/** Per incarnation (`<schema>/<name>#<start>`). */
const nodes = new Map<string, NodeState>();

function stateOf(incarnation: string): NodeState {
  let node = nodes.get(incarnation);
  if (!node) {
    // A new incarnation is a restart: whatever an earlier run of this node kept in memory is dropped.
    const sameNode = incarnation.slice(0, incarnation.lastIndexOf('#') + 1);
    for (const key of nodes.keys()) if (sameNode && key.startsWith(sameNode)) nodes.delete(key);
    node = { inFlight: 0, waiting: [] };
    nodes.set(incarnation, node);
  }
  return node;
}

async function salesSettled(node: NodeState): Promise<void> {
  while (node.inFlight > 0) await new Promise<void>((resolve) => node.waiting.push(resolve));
}

async function built(node: NodeState, start: () => Promise<Map<string, number>>): Promise<NodeCount> {
  await salesSettled(node);
  return { units: await start(), dropped: false, node };
}

/**
 * The node's count: the one it holds, or one `start` builds (first start, or after `dropCount`) once
 * none of its sales is in flight. A start that fails (its connection cut mid-way) is tried again next time.
 */
export async function nodeCount(
  incarnation: string,
  start: () => Promise<Map<string, number>>,
): Promise<NodeCount> {
  const node = stateOf(incarnation);
  for (;;) {
    if (!node.count) node.count = built(node, start);
    const building = node.count;
    try {
      const count = await building;
      if (!count.dropped) return count;
    } catch (error: unknown) {
      if (node.count === building) node.count = undefined;
      throw error;
    }
    if (node.count === building) node.count = undefined;
  }
}

/** Takes a unit of `sku` (an in-flight sale until `settleUnit`), unless there is none or the count is dropped. */
export function takeUnit(count: NodeCount, sku: string): 'taken' | 'none' | 'unknown-sku' | 'dropped' {
  if (count.dropped) return 'dropped';
  const left = count.units.get(sku);
  if (left === undefined) return 'unknown-sku';
  if (left <= 0) return 'none';
  count.units.set(sku, left - 1);
  count.node.inFlight += 1;
  return 'taken';
}

/** A taken unit's transaction has settled: sold (or maybe sold), or put back. */
export function settleUnit(count: NodeCount, sku: string, putBack: boolean): void {
  if (putBack) count.units.set(sku, (count.units.get(sku) ?? 0) + 1);
  count.node.inFlight -= 1;
  if (count.node.inFlight > 0) return;
  for (const resume of count.node.waiting.splice(0)) resume();
}

/** The node drops `count`: its next sale rebuilds one (nodeCount) once its sales in flight have settled. */
export function dropCount(count: NodeCount): void {
  count.dropped = true;
}
