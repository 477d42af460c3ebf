/**
 * `lostAcknowledged` across the copies of a cluster case, generic over the contract (Jepsen's `lost` of
 * Patroni's own CI, per copy): an item the case acknowledged to a client is lost when some
 * copy the cluster goes on with (a `survivor`) does not keep it. With one survivor this is the one-server
 * count against it; with two (a split brain) an item only one side keeps is lost whichever side is kept;
 * with none, nothing acknowledged is kept anywhere the cluster goes on. What keeping means is the
 * contract's (`keeps`), in its own verdict folder.
 */
import type { ClusterCopy } from './cluster.ts';

/** The acknowledged items some survivor among `copies` does not keep, in the order given. */
export function lostAcrossCopies<R, A>(
  acknowledged: readonly A[],
  copies: readonly (Pick<ClusterCopy, 'role'> & { read: R })[],
  keeps: (read: R, item: A) => boolean,
): A[] {
  const survivors = copies.filter((c) => c.role === 'survivor');
  if (survivors.length === 0) return [...acknowledged];
  return acknowledged.filter((item) => survivors.some((copy) => !keeps(copy.read, item)));
}
