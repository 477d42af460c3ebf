/**
 * Driving a script scenario: its code runs against a ScriptContext (or the one a black box can honour)
 * that collects what it drove.
 */
import type { ClientDriver } from '../driver/client-pool.ts';
import type { CaseOnSchema } from './case-spec.ts';
import type { Driven } from './driven.ts';
import type { ScriptScenario } from './scenario.ts';
import { scriptContext } from './script-context.ts';

export async function driveScript(
  on: CaseOnSchema,
  // biome-ignore lint/suspicious/noExplicitAny: each script scenario types its own observations
  scenario: ScriptScenario<any>,
  pool: ClientDriver,
): Promise<Driven> {
  const { spec, settings, db, schema } = on;
  const script = scriptContext(db, pool, spec.ref, schema, spec.params, {
    timeoutMs: settings.timeoutMs,
    ...(spec.isolation ? { isolation: spec.isolation } : {}),
    ...(scenario.sessionSettings ? { settings: scenario.sessionSettings } : {}),
  });
  await scenario.run(spec.blackBox ? spec.blackBox.scriptContext(script.ctx, scenario) : script.ctx);
  return {
    sent: script.sent,
    answers: script.answers,
    lifecycle: script.lifecycle,
    exercised: [...script.exercised],
    pausePoints: [...script.pausePoints],
    observations: script.observations,
    phases: script.phases,
  };
}
