/**
 * Sessions a script scenario opens for itself (lifecycle jobs, a proxied session), each on its own
 * connection, numbered across the case so that each has an application_name of its own.
 */
import type pg from 'pg';
import type { SessionContext } from '../../../../strategies/contract.ts';
import { connectMember } from '../../../database/member-connection.ts';
import { caseClient } from '../../../driver/case-client.ts';
import { type CaseConnection, sessionOptions } from '../../../driver/case-connection.ts';
import { nodeIdentity } from '../../../driver/node-identity.ts';

/** Pause points do nothing in a session of the scenario's own: only the crash child stops at one. */
export const passThrough = async () => undefined;

export class ScriptSessions {
  private opened = 0;

  constructor(private readonly connection: CaseConnection) {}

  /** A client, not yet connected, straight to the database or through `connectionString` (a proxy). */
  client(role: 'job' | 'proxied', connectionString = this.connection.connectionString): pg.Client {
    this.opened += 1;
    return caseClient(this.connection, `reservebench-${role}-${this.opened}`, connectionString);
  }

  /** The session the strategy is given on `client`: the case's one node, no pause points. */
  session(client: pg.Client): SessionContext {
    return {
      db: client,
      pause: passThrough,
      pausesAt: () => false,
      node: nodeIdentity(this.connection.schema, 0, 1),
    };
  }

  /**
   * `count` sessions, each on its own connection (on a cluster, to the member writable now), closed after
   * `work`.
   */
  async withSessions<T>(count: number, work: (sessions: SessionContext[]) => Promise<T>): Promise<T> {
    const opening = Array.from({ length: count }, () => {
      this.opened += 1;
      return connectMember({
        connectionString: this.connection.connectionString,
        application_name: `reservebench-job-${this.opened}`,
        options: sessionOptions(this.connection),
      });
    });
    const settled = await Promise.allSettled(opening);
    const clients = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    try {
      const failed = settled.find((s) => s.status === 'rejected');
      if (failed) throw failed.reason;
      return await work(clients.map((c) => this.session(c)));
    } finally {
      await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
    }
  }
}
