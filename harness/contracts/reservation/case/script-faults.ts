/**
 * A script's faults: the strategy's operation killed -9 in a child process at a pause point, the database
 * crashed and restarted, a session whose COMMIT answer a proxy can lose, a server setting changed for a
 * while. The case records each crash as a step of its phases.
 */
import pg from 'pg';
import { commitAckProxyFor } from '../../../crash/commit-ack-proxy.ts';
import { crashOrderOn, runUntilStage } from '../../../crash/crash-runner.ts';
import { crashStrategy, crashWorkOf } from './crash-operation.ts';
import type { ScriptContext } from './scenario.ts';
import type { ScriptScope } from './script-scope.ts';

export function scriptFaults(
  scope: ScriptScope,
): Pick<ScriptContext, 'crash' | 'crashDatabase' | 'withProxiedSession' | 'withServerSetting'> {
  const { db, ref, connection, timeoutMs, sessions, record } = scope;
  return {
    crash(operation, crashAt) {
      const order = crashOrderOn(connection, crashStrategy(ref.moduleUrl), crashWorkOf(operation), crashAt);
      return record.killed(operation, crashAt, () => runUntilStage(order, db.admin, timeoutMs));
    },
    async crashDatabase() {
      const crashAndRestart = db.crashAndRestart?.bind(db);
      if (!crashAndRestart) throw new Error('the run has no way to restart this server');
      await record.databaseCrash(async () => {
        await crashAndRestart();
        // The admin connection is a new one: it reads the case's tables again.
        await db.admin.query(`SET search_path TO ${connection.schema}`);
      });
    },
    async withProxiedSession(work) {
      const { proxy, url } = await commitAckProxyFor(db.connectionString);
      const client = sessions.client('proxied', url);
      try {
        await client.connect();
        return await work(sessions.session(client), proxy);
      } finally {
        await client.end().catch(() => undefined);
        await proxy.close();
      }
    },
    async withServerSetting(name, value, work) {
      await db.admin.query(`ALTER SYSTEM SET ${name} = ${pg.escapeLiteral(value)}`);
      await db.admin.query('SELECT pg_reload_conf()');
      try {
        return await work();
      } finally {
        await db.admin.query(`ALTER SYSTEM RESET ${name}`).catch(() => undefined);
        await db.admin.query('SELECT pg_reload_conf()').catch(() => undefined);
      }
    },
  };
}
