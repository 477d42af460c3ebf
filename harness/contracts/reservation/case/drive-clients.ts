/**
 * Driving a clients scenario: its plan's clients on the worker-thread driver, all started at one barrier
 * and, where the strategy declares the plan's pause point, held there until every one has reached it.
 */

import type { PausePoint } from '../../../../strategies/contract.ts';
import { STRATEGY_IMPORTER } from '../designs/registry.ts';
import type { ClientDriver } from '../driver/client-pool.ts';
import { CaseRecord } from './case-record.ts';
import type { CaseOnSchema } from './case-spec.ts';
import type { Driven } from './driven.ts';
import type { ClientsScenario } from './scenario.ts';

export async function driveClients(
  on: CaseOnSchema,
  scenario: ClientsScenario,
  pool: ClientDriver,
): Promise<Driven> {
  const { spec, settings, db, schema } = on;
  const { strategy, moduleUrl } = spec.ref;
  const plan = scenario.plan(spec.params);
  const declared = (point: PausePoint | undefined): point is PausePoint =>
    !!point && !!strategy.pausePoints.reserve?.includes(point);
  const holdAt = declared(plan.holdAt) ? plan.holdAt : undefined;
  // A lead held at its own point only makes sense while the others are held too: alone, it would keep
  // what they wait for.
  const clients = plan.clients.map(({ holdAt: lead, ...client }) =>
    holdAt && declared(lead) ? { ...client, holdAt: lead } : client,
  );
  const record = new CaseRecord(on.history);
  if (holdAt) record.heldAt(holdAt);
  await record.reserve(clients, async () => {
    const answered = await pool.drive({
      strategyModuleUrl: moduleUrl,
      strategyImporter: STRATEGY_IMPORTER,
      connection: {
        connectionString: db.connectionString,
        schema,
        ...(spec.isolation ? { isolation: spec.isolation } : {}),
      },
      clients,
      nodes: spec.params.nodes,
      timeoutMs: settings.timeoutMs,
      queueClock: on.deadline,
      ...(holdAt ? { holdAt } : {}),
    });
    return answered.flatMap((c) => c.results);
  });
  return record.driven();
}
