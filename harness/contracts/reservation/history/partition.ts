/**
 * P-compositionality (Herlihy & Wing; Porcupine): stock and user limits are per sku, so a history is
 * linearizable when each independent part of it is. Parts are skus joined by anything that spans them: a
 * request key sent with two skus (one of the two must be KEY_REUSED), an expire (it moves every sku and
 * answers one sum), a backdate of keys on several skus. Operations on a key no reserve ever named (a status
 * or confirm of an unknown key) form parts of their own.
 */
import type { ReservationOperation } from './reservation-operations.ts';

class UnionFind {
  private readonly parent = new Map<string, string>();

  find(x: string): string {
    let root = x;
    for (let up = this.parent.get(root); up !== undefined && up !== root; up = this.parent.get(root))
      root = up;
    if (!this.parent.has(x)) this.parent.set(x, x);
    for (let node = x; node !== root; ) {
      const next = this.parent.get(node) ?? root;
      this.parent.set(node, root);
      node = next;
    }
    return root;
  }

  union(a: string, b: string): void {
    const [ra, rb] = [this.find(a), this.find(b)];
    if (ra !== rb) this.parent.set(ra, rb);
  }
}

/** The skus each request key was reserved with. */
function skusByKey(operations: readonly ReservationOperation[]): Map<string, Set<string>> {
  const byKey = new Map<string, Set<string>>();
  for (const { call } of operations) {
    if (call.op !== 'reserve') continue;
    const skus = byKey.get(call.requestKey) ?? new Set<string>();
    skus.add(call.sku);
    byKey.set(call.requestKey, skus);
  }
  return byKey;
}

/** The skus an operation touches; empty for a key no reserve named. */
function touched(
  op: ReservationOperation,
  byKey: Map<string, Set<string>>,
  allSkus: readonly string[],
): string[] {
  const { call } = op;
  switch (call.op) {
    case 'reserve':
      return [call.sku, ...(byKey.get(call.requestKey) ?? [])];
    case 'confirm':
    case 'release':
    case 'status':
      return [...(byKey.get(call.requestKey) ?? [])];
    case 'expire':
      return [...allSkus];
    case 'disable':
    case 'remaining':
      return [call.sku];
    case 'backdate':
      return call.requestKeys.flatMap((k) => [...(byKey.get(k) ?? [])]);
  }
}

/** The history's independent parts, each in invocation order. */
export function partitionHistory(
  operations: readonly ReservationOperation[],
  stockSkus: readonly string[],
): ReservationOperation[][] {
  const byKey = skusByKey(operations);
  const reserved = [...new Set([...stockSkus, ...[...byKey.values()].flatMap((s) => [...s])])];
  const sets = new UnionFind();
  const touches = operations.map((op) => touched(op, byKey, reserved));
  for (const skus of touches) for (const sku of skus.slice(1)) sets.union(skus[0] as string, sku);
  const parts = new Map<string, ReservationOperation[]>();
  operations.forEach((op, i) => {
    const skus = touches[i] ?? [];
    const first = skus[0];
    const name =
      first === undefined ? `key:${'requestKey' in op.call ? op.call.requestKey : op.id}` : sets.find(first);
    const part = parts.get(name);
    if (part) part.push(op);
    else parts.set(name, [op]);
  });
  return [...parts.values()];
}
