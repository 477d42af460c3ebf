/**
 * A standby's replication link, through a loopback TCP proxy of the suite's own: the standby's
 * `primary_conninfo` names the proxy, which passes every byte to the primary and back. `partition()`
 * cuts the link as a network partition does — nothing passes either way any more, not even a closed
 * connection, and a new connection reaches nobody — until `heal()` lets what was held through, in order.
 * (A signal to the WAL receiver is no partition: what the primary had sent already sits in its socket.)
 * What a partition holds is dropped with the link when its primary goes away for good (`close`).
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface LinkProxy {
  /** The loopback port the standby connects to. */
  port: number;
  partitioned(): boolean;
  partition(): void;
  heal(): void;
  /** Ends every connection and stops listening. */
  close(): Promise<void>;
}

/** One connection through the proxy: both ends, and what waits while the link is cut. */
interface Pipe {
  client: Socket;
  upstream: Socket | undefined;
  /** Bytes, ends and resets held while partitioned, per direction, in order. */
  toServer: Item[];
  toClient: Item[];
}

/** What passes one way: bytes, the other end's FIN, or its reset (an error, a process gone). */
type Item = Buffer | 'end' | 'reset';

function deliver(to: Socket | undefined, item: Item): void {
  if (!to || to.destroyed) return;
  if (item === 'end') to.end();
  else if (item === 'reset') to.destroy();
  else to.write(item);
}

export async function startLinkProxy(target: { host: string; port: number }): Promise<LinkProxy> {
  let cut = false;
  const pipes = new Set<Pipe>();
  const flowInto = (pipe: Pipe, direction: 'toServer' | 'toClient') => (item: Item) => {
    if (cut) pipe[direction].push(item);
    else deliver(direction === 'toServer' ? pipe.upstream : pipe.client, item);
  };
  const openUpstream = (pipe: Pipe) => {
    const upstream = connect(target.port, target.host);
    pipe.upstream = upstream;
    upstream.on('data', flowInto(pipe, 'toClient'));
    upstream.on('end', () => flowInto(pipe, 'toClient')('end'));
    upstream.on('error', () => flowInto(pipe, 'toClient')('reset'));
    // Before the first byte of the client's: it asked to be connected, and waits.
    for (const item of pipe.toServer.splice(0)) deliver(upstream, item);
  };
  const server: Server = createServer({ allowHalfOpen: true }, (client) => {
    const pipe: Pipe = { client, upstream: undefined, toServer: [], toClient: [] };
    pipes.add(pipe);
    client.on('data', flowInto(pipe, 'toServer'));
    client.on('end', () => flowInto(pipe, 'toServer')('end'));
    client.on('error', () => flowInto(pipe, 'toServer')('reset'));
    client.on('close', () => pipes.delete(pipe));
    // A connection made across a partition reaches nobody until it heals.
    if (!cut) openUpstream(pipe);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    partitioned: () => cut,
    partition() {
      cut = true;
    },
    heal() {
      cut = false;
      for (const pipe of pipes) {
        if (!pipe.upstream) openUpstream(pipe);
        for (const item of pipe.toServer.splice(0)) deliver(pipe.upstream, item);
        for (const item of pipe.toClient.splice(0)) deliver(pipe.client, item);
      }
    },
    async close() {
      for (const pipe of pipes) {
        pipe.client.destroy();
        pipe.upstream?.destroy();
      }
      pipes.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
