/**
 * Driving a script scenario: its code runs against a ScriptContext (or the one a black box can honour)
 * whose every part writes what it drove into the case's record.
 */
import type { ClientDriver } from '../driver/client-pool.ts';
import { CaseRecord } from './case-record.ts';
import type { CaseOnSchema } from './case-spec.ts';
import type { Driven } from './driven.ts';
import type { ScriptScenario } from './scenario.ts';
import { scriptContext } from './script-context.ts';
import { ScriptSessions } from './script-sessions.ts';

export async function driveScript(
  on: CaseOnSchema,
  // biome-ignore lint/suspicious/noExplicitAny: each script scenario types its own observations
  scenario: ScriptScenario<any>,
  pool: ClientDriver,
): Promise<Driven> {
  const { spec, settings, db, schema } = on;
  const connection = {
    connectionString: db.connectionString,
    schema,
    ...(spec.isolation ? { isolation: spec.isolation } : {}),
    ...(scenario.sessionSettings ? { settings: scenario.sessionSettings } : {}),
    ...(scenario.cluster?.faults.includes('standby-session') ? { standby: true as const } : {}),
  };
  const record = new CaseRecord(on.history);
  const ctx = scriptContext({
    db,
    pool,
    ref: spec.ref,
    params: spec.params,
    connection,
    timeoutMs: settings.timeoutMs,
    deadline: on.deadline,
    sessions: new ScriptSessions(connection),
    record,
  });
  await scenario.run(spec.blackBox ? spec.blackBox.scriptContext(ctx, scenario) : ctx);
  return record.driven();
}
