/**
 * The nodes a permutation's strategy operations run on, for designs that keep state per node in memory
 * (memory-quota): node i of n as a spec writes `ON i/n`, node 1 of 1 without it. A node restarts when a
 * RESTART step says so, or when RESUME KILL kills an operation that ran on it (its process died); each
 * start is a new incarnation (harness/driver/node-identity.ts), so memory an earlier one kept is gone.
 */
import type { NodeIdentity } from '../../strategies/contract.ts';
import { nodeIdentity } from '../driver/node-identity.ts';
import type { NodeRef, Step } from './permutation.ts';

export const SINGLE_NODE: NodeRef = { node: 1, of: 1 };

/** The node a step names: its operation's (`ON`, or 1/1), or the one it restarts; none for the rest. */
export function nodeOf(step: Step): NodeRef | undefined {
  if ('restart' in step) return step.restart;
  if ('reserve' in step) return step.on ?? SINGLE_NODE;
  if ('operation' in step && step.operation !== 'backdate') return step.on ?? SINGLE_NODE;
  return undefined;
}

const written = (ref: NodeRef) => `${ref.node}/${ref.of}`;

/**
 * Why two steps cannot be in one spec: they count the nodes differently (a design splits its stock by
 * the count, so node 1 of 1 and node 1 of 2 would be one process with two shares). Undefined when they
 * agree, or either names no node.
 */
export function nodeCountConflict(first: Step, other: Step): string | undefined {
  const a = nodeOf(first);
  const b = nodeOf(other);
  if (!a || !b || a.of === b.of) return undefined;
  const names = (step: Step, ref: NodeRef) => {
    if ('restart' in step) return `step "${step.name}" restarts node ${written(ref)}`;
    return `step "${step.name}" runs on node ${written(ref)}${'on' in step && step.on ? '' : ' (no ON)'}`;
  };
  return `${names(other, b)}, but ${names(first, a)}: every node of a spec is one of the same count`;
}

/** The first conflict of node counts among `steps`, against the first step that names a node. */
export function mixedNodeCounts(steps: readonly Step[]): string | undefined {
  const first = steps.find((step) => nodeOf(step));
  if (!first) return undefined;
  for (const step of steps) {
    const conflict = nodeCountConflict(first, step);
    if (conflict) return conflict;
  }
  return undefined;
}

export class Nodes {
  /** Per node number, how many times it has started (1 until its first restart). */
  private readonly starts = new Map<number, number>();

  /** `schema`: the case's, which names the incarnations so no other case's memory is found. */
  constructor(private readonly schema: string) {}

  identity(ref: NodeRef): NodeIdentity {
    return nodeIdentity(this.schema, ref.node - 1, ref.of, this.starts.get(ref.node) ?? 1);
  }

  /** Every node of the steps' count, each in its last incarnation (node 1 of 1 when no step names one). */
  lastIdentities(steps: readonly Step[]): NodeIdentity[] {
    const of = steps.map(nodeOf).find((ref) => ref)?.of ?? 1;
    return Array.from({ length: of }, (_, i) => this.identity({ node: i + 1, of }));
  }

  restart(ref: NodeRef): void {
    this.starts.set(ref.node, (this.starts.get(ref.node) ?? 1) + 1);
  }
}
