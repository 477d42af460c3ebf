/**
 * A script's HTTP: the harness's own reservation service in front of the strategy, and the requests and
 * answers of clients the scenario drives over it itself, recorded like the driver's.
 */

import { nodeIdentity } from '../../../driver/node-identity.ts';
import { startReservationService } from '../http/reservation-service.ts';
import type { ScriptContext } from './scenario.ts';
import type { ScriptScope } from './script-scope.ts';

export function scriptHttp(scope: ScriptScope): Pick<ScriptContext, 'withService' | 'sent' | 'answered'> {
  const { db, ref, connection, record } = scope;
  return {
    sent: (requests) => record.httpSent(requests),
    answered: (results) => record.httpAnswered(results),
    async withService(settings, work) {
      const service = await startReservationService({
        strategy: ref.strategy,
        connectionString: db.connectionString,
        schema: connection.schema,
        ...(connection.isolation ? { isolation: connection.isolation } : {}),
        node: nodeIdentity(connection.schema, 0, 1),
        ...settings,
      });
      try {
        return await work(service);
      } finally {
        await service.close();
      }
    },
  };
}
