/** A session of a permutation: its own connection, and what it is doing between steps. */
import pg from 'pg';
import type { IsolationLevel } from '../../strategies/contract.ts';
import { sessionOptions } from '../driver/case-connection.ts';
import type { NodeRef, ServerMessage } from './permutation.ts';
import { serverMessageOf } from './server-message.ts';
import type { Outcome } from './step-outcome.ts';

/** An operation of the design stopped at its pause point, transaction open, until a RESUME step lets it go. */
export interface PausedOperation {
  requestKey: string;
  point: string;
  /** The node it runs on: RESUME KILL restarts it. */
  node: NodeRef;
  release(mode: 'commit' | 'rollback'): void;
  finished: Promise<Outcome>;
}

export interface SessionConnection {
  connectionString: string;
  schema?: string;
  isolation?: IsolationLevel;
}

/** One connection of the session, and why it went away between steps, if it did. */
interface Link {
  client: pg.Client;
  pid: number;
  lost(): unknown;
}

export class Session {
  notices = 0;
  /** An operation of the design has run on this session. */
  operated?: boolean;
  paused?: PausedOperation;
  /** How often this session's operations have called `ctx.retried`, over the whole permutation. */
  retriesReported = 0;
  /** Set by `connect`, which `open` awaits before the session is handed out. */
  private link!: Link;

  private constructor(
    readonly name: string,
    private readonly connection: SessionConnection,
    private readonly onNotice: (session: Session, notice: ServerMessage) => void,
  ) {}

  static async open(
    name: string,
    connection: SessionConnection,
    onNotice: (session: Session, notice: ServerMessage) => void,
  ): Promise<Session> {
    const session = new Session(name, connection, onNotice);
    await session.connect();
    return session;
  }

  get client(): pg.Client {
    return this.link.client;
  }

  get pid(): number {
    return this.link.pid;
  }

  /** Why the connection went away between steps, if it did. */
  lostWith(): unknown {
    return this.link.lost();
  }

  /** The session goes on on a new connection, as a restarted process would; the old one is closed. */
  async reconnect(): Promise<void> {
    const old = this.link.client;
    await this.connect();
    await old.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const { connectionString, schema, isolation } = this.connection;
    const client = new pg.Client({
      connectionString,
      application_name: `reservebench-${this.name}`,
      ...(schema ? { options: sessionOptions({ schema, isolation }) } : {}),
    });
    // A backend terminated while the session is idle arrives here, not as a query's error: kept, so the
    // next step fails with the server's own reason (57P01) instead of "not queryable".
    let lost: unknown;
    client.on('error', (error) => {
      lost ??= error;
    });
    await client.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const pid = rows[0]?.pid;
    if (pid === undefined) throw new Error(`session ${this.name} has no backend pid`);
    client.on('notice', (notice) => this.onNotice(this, serverMessageOf(notice)));
    this.link = { client, pid, lost: () => lost };
  }
}
