/**
 * A loopback TCP proxy in front of the database that can lose one operation's commit answer: the
 * client's COMMIT (or the autocommit statement that writes the operation's row) reaches the server, the server
 * commits and answers, and the proxy cuts both connections instead of passing that answer on. The client
 * cannot know whether it committed.
 *
 * Which answer, from PostgreSQL's v3 protocol and the database, never a timer. A transaction ends only with
 * a statement's completion: a COMMIT's, or an autocommit statement's, whose implicit transaction the server
 * closes before the ReadyForQuery that ends the query (the simple Query's, or the Sync's). That
 * ReadyForQuery reports 'I': no transaction is open any more. So, once armed, the proxy holds each answer
 * from its first CommandComplete to its ReadyForQuery. When that reports 'I', it asks whether the
 * operation is committed now, read back on another connection (this session holds no transaction, so the
 * read cannot wait on it): the first answer after which it is, is the commit answer, and never reaches the
 * client. Every other answer is passed on whole: a lookup or a node's registration before the operation's write,
 * a read-only transaction, a rollback, and any answer that leaves a transaction open ('T' or 'E').
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

/** Splits the server's stream into v3 messages: a type byte, then an int32 length that counts itself. */
class MessageReader {
  private pending = Buffer.alloc(0);

  push(chunk: Buffer): Buffer[] {
    this.pending = Buffer.concat([this.pending, chunk]);
    const messages: Buffer[] = [];
    while (this.pending.length >= 5) {
      const length = this.pending.readInt32BE(1) + 1;
      if (this.pending.length < length) break;
      messages.push(this.pending.subarray(0, length));
      this.pending = this.pending.subarray(length);
    }
    return messages;
  }
}

const COMMAND_COMPLETE = 0x43; // 'C'
const READY_FOR_QUERY = 0x5a; // 'Z', its one byte of body the transaction status
const IDLE = 0x49; // 'I'

/** Whether the operation the armed proxy is waiting for is in the database now. */
export type CommittedCheck = () => Promise<boolean>;

export interface CommitAckProxy {
  port: number;
  /** The first answer after which `committed()` holds never reaches the client: both connections are cut. */
  loseCommitAnswer(committed: CommittedCheck): void;
  close(): Promise<void>;
}

export async function startCommitAckProxy(target: { host: string; port: number }): Promise<CommitAckProxy> {
  let armed: CommittedCheck | undefined;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    sockets.add(client).add(upstream);
    const fromServer = new MessageReader();
    let held: Buffer[] | undefined;
    const cut = () => {
      client.destroy();
      upstream.destroy();
    };
    /** Passes `message` on or holds it; false once the connections are cut at it. */
    const relay = async (message: Buffer): Promise<boolean> => {
      if (armed && !held && message[0] === COMMAND_COMPLETE) held = [];
      if (!held) {
        client.write(message);
        return true;
      }
      held.push(message);
      if (message[0] !== READY_FOR_QUERY) return true;
      const answer = held;
      held = undefined;
      const committed = armed;
      // A read that fails cannot tell; passing the answer on would let the operation end untested, so the
      // proxy cuts, and the scenario's own read of what it wrote reports the failure.
      if (committed && message[5] === IDLE && (await committed().catch(() => true))) {
        armed = undefined;
        cut();
        return false;
      }
      for (const m of answer) client.write(m);
      return true;
    };
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      // The server's messages are relayed in order: nothing more is read while a held answer waits.
      upstream.pause();
      void (async () => {
        for (const message of fromServer.push(chunk)) if (!(await relay(message))) return;
        upstream.resume();
      })();
    });
    for (const socket of [client, upstream]) {
      socket.on('error', cut);
      socket.on('close', () => {
        sockets.delete(socket);
        cut();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    loseCommitAnswer(committed) {
      armed = committed;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A proxy in front of the server `connectionString` names, and that URL through it. The proxy reaches the
 * server's TCP address; a `host` parameter (the embedded server's Unix socket, database.ts) would take a
 * client past the proxy, so the URL through it has none.
 */
export async function commitAckProxyFor(
  connectionString: string,
): Promise<{ proxy: CommitAckProxy; url: string }> {
  const direct = new URL(connectionString);
  const proxy = await startCommitAckProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
  const via = new URL(connectionString);
  via.hostname = '127.0.0.1';
  via.port = String(proxy.port);
  via.searchParams.delete('host');
  return { proxy, url: via.toString() };
}
