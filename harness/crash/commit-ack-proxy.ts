/**
 * A loopback TCP proxy in front of the database that can lose one commit's acknowledgement: the client's
 * COMMIT (or an autocommit statement) reaches the server, the server commits and answers, and the proxy
 * cuts both connections instead of passing the end of that answer on. The client cannot know whether it
 * committed. Armed step by step by the scenario and triggered by what it reads on the wire (PostgreSQL's
 * v3 protocol: the first ReadyForQuery that reports the session idle again, i.e. a transaction just ended),
 * never by a timer.
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

export interface CommitAckProxy {
  port: number;
  /** The next transaction to end through the proxy loses its answer; resolves once the connection is cut. */
  loseNextCommitAnswer(): Promise<void>;
  close(): Promise<void>;
}

export async function startCommitAckProxy(target: { host: string; port: number }): Promise<CommitAckProxy> {
  let armed: (() => void) | undefined;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    sockets.add(client).add(upstream);
    const fromServer = new MessageReader();
    const cut = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      for (const message of fromServer.push(chunk)) {
        // 'Z' ReadyForQuery with status 'I': the server is idle again, so a transaction has just ended.
        if (armed && message[0] === 0x5a && message[5] === 0x49) {
          const done = armed;
          armed = undefined;
          cut();
          done();
          return;
        }
        client.write(message);
      }
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
    loseNextCommitAnswer: () =>
      new Promise<void>((resolve) => {
        armed = resolve;
      }),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
