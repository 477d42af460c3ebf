/** A session of a permutation: its own connection, and what it is doing between steps. */
import pg from 'pg';
import type { IsolationLevel, NodeIdentity } from '../../strategies/contract.ts';
import { sessionOptions } from '../driver/client-task.ts';
import { nodeIdentity } from '../driver/node-identity.ts';
import type { ServerMessage } from './permutation.ts';
import type { SentStep } from './sent-step.ts';
import { serverMessageOf } from './server-message.ts';
import type { Outcome } from './step-outcome.ts';

/** A strategy operation stopped at its pause point, transaction open, until a RESUME step lets it go. */
export interface PausedOperation {
  requestKey: string;
  release(mode: 'commit' | 'rollback'): void;
  finished: Promise<Outcome>;
}

export interface SessionConnection {
  connectionString: string;
  schema?: string;
  isolation?: IsolationLevel;
}

export class Session {
  notices = 0;
  /** Sent and not yet reported completed, like the tester's active step. */
  active?: SentStep;
  /** A strategy operation has run on this session. */
  reserved?: boolean;
  paused?: PausedOperation;

  private constructor(
    readonly name: string,
    readonly client: pg.Client,
    readonly pid: number,
    /** Every session of a permutation talks to one node. */
    readonly node: NodeIdentity,
    /** Why the connection went away between steps, if it did. */
    readonly lostWith: () => unknown,
  ) {}

  static async open(
    name: string,
    connection: SessionConnection,
    onNotice: (session: Session, notice: ServerMessage) => void,
  ): Promise<Session> {
    const client = new pg.Client({
      connectionString: connection.connectionString,
      application_name: `reservebench-${name}`,
      ...(connection.schema
        ? { options: sessionOptions({ schema: connection.schema, isolation: connection.isolation }) }
        : {}),
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
    if (pid === undefined) throw new Error(`session ${name} has no backend pid`);
    const node = nodeIdentity(connection.schema ?? 'engine', 0, 1);
    const session = new Session(name, client, pid, node, () => lost);
    client.on('notice', (notice) => onNotice(session, serverMessageOf(notice)));
    return session;
  }
}
