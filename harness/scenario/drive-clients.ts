/**
 * Driving a clients scenario: its plan's clients on the worker-thread driver, all started at one barrier
 * and, where the strategy declares the plan's pause point, held there until every one has reached it.
 */
import type { PausePoint } from '../../strategies/contract.ts';
import type { ClientDriver } from '../driver/client-pool.ts';
import type { LifecycleFacts } from '../verdict/invariants.ts';
import type { CaseOnSchema } from './case-spec.ts';
import type { Driven } from './driven.ts';
import { PhaseRecorder } from './phases.ts';
import type { ClientsScenario } from './scenario.ts';

const NO_LIFECYCLE: LifecycleFacts = { released: new Set(), expireRan: false };

export async function driveClients(
  on: CaseOnSchema,
  scenario: ClientsScenario,
  pool: ClientDriver,
): Promise<Driven> {
  const { spec, settings, db, schema } = on;
  const { strategy, moduleUrl } = spec.ref;
  const plan = scenario.plan(spec.params);
  const holdAt = plan.holdAt && strategy.pausePoints.reserve?.includes(plan.holdAt) ? plan.holdAt : undefined;
  const declared = (point: PausePoint | undefined) =>
    !!point && !!strategy.pausePoints.reserve?.includes(point);
  // A lead held at its own point only makes sense while the others are held too: alone, it would keep
  // what they wait for.
  const scripts = plan.clients.map(({ holdAt: lead, ...client }) =>
    holdAt && declared(lead) ? { ...client, holdAt: lead } : client,
  );
  const clients = await pool.drive({
    strategyModuleUrl: moduleUrl,
    connection: {
      connectionString: db.connectionString,
      schema,
      ...(spec.isolation ? { isolation: spec.isolation } : {}),
    },
    clients: scripts,
    timeoutMs: settings.timeoutMs,
    ...(holdAt ? { holdAt } : {}),
  });
  const rollbacks = [...new Set(plan.clients.flatMap((c) => (c.rollbackAt ? [c.rollbackAt] : [])))];
  const answers = clients.flatMap((c) => c.results);
  const phases = new PhaseRecorder();
  phases.answered(0, answers.length);
  return {
    sent: plan.clients.flatMap((c) => c.requests),
    answers,
    lifecycle: NO_LIFECYCLE,
    exercised: ['reserve'],
    pausePoints: [...(holdAt ? [`reserve:${holdAt}`] : []), ...rollbacks.map((p) => `reserve:${p}`)],
    observations: {},
    phases,
  };
}
