/**
 * The ScriptContext a script scenario runs against, composed of its parts: reservations (the worker-thread
 * driver, or a session of the scenario's own), lifecycle operations, reads and waits, faults (a crash
 * child, a database crash, a proxy, a server setting) and HTTP. Every part goes through the strategy on
 * real connections and writes what it drove into the case's record, and only there.
 */
import { nodeIdentity } from '../../../driver/node-identity.ts';
import type { ScriptContext } from './scenario.ts';
import { scriptCluster } from './script-cluster.ts';
import { scriptFaults } from './script-faults.ts';
import { scriptGiveUp } from './script-give-up.ts';
import { scriptHttp } from './script-http.ts';
import { scriptLifecycle } from './script-lifecycle.ts';
import { scriptReads } from './script-reads.ts';
import { scriptReservations } from './script-reservations.ts';
import type { ScriptScope } from './script-scope.ts';

export function scriptContext(scope: ScriptScope): ScriptContext {
  const { params, ref, connection, sessions, record } = scope;
  return {
    params,
    strategy: ref.strategy,
    ...scriptReservations(scope),
    ...scriptGiveUp(scope),
    ...scriptLifecycle(scope),
    ...scriptReads(scope),
    ...scriptFaults(scope),
    ...scriptHttp(scope),
    ...scriptCluster(scope),
    withSessions: (count, work) => sessions.withSessions(count, work),
    node: (index, count, start) => nodeIdentity(connection.schema, index, count, start),
    observe: (name, value) => record.observe(name, value),
  };
}
