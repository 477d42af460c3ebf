/**
 * One drive of a case on fresh tables (case/case-schema.ts): the strategy's setup with the scenario's
 * stock, the drive within the case's deadline, then the measuring and judging.
 */

import { CaseDeadline, withinCaseDeadline } from '../../../case/case-deadline.ts';
import { onCaseSchema } from '../../../case/case-schema.ts';
import type { CaseSettings } from '../../../contract/case-settings.ts';
import type { RunDatabase } from '../../../database/database.ts';
import { HistoryRecorder, measureClockMapping, UNMEASURED_CLOCK } from '../../../history/recorder.ts';
import type { ClientDriver } from '../driver/client-pool.ts';
import type { Answer, Call } from '../history/reservation-operations.ts';
import type { CaseResult } from '../verdict/case-result.ts';
import { type CaseOnSchema, type CaseSpec, identityOf } from './case-spec.ts';
import type { Driven } from './driven.ts';
import { measureCase } from './measure.ts';

/**
 * `judgeBlocking` is false for an order of an interleaving other than the listed one: its blocking is
 * not the one the scenario expects. `pool`: the driver `drive` runs the clients on (CaseOnSchema.pool).
 */
export async function onFreshTables(
  db: RunDatabase,
  spec: CaseSpec,
  settings: CaseSettings,
  drive: (on: CaseOnSchema) => Promise<Driven>,
  judgeBlocking = true,
  pool?: ClientDriver,
): Promise<CaseResult> {
  const { strategy } = spec.ref;
  const { scenario } = spec;
  return onCaseSchema<CaseResult>(db, settings, {
    name: `${scenario.id}_${strategy.id}`,
    work: async (schema, at) => {
      // A black box has no tables here: its setup loads the stock through its own way (reset, command).
      if (!spec.blackBox) await db.admin.query(`SET search_path TO ${schema}`);
      await strategy.setup(db.admin, spec.params.stock);
      // The crash under test is the clients'; the tables themselves must survive it, whatever
      // synchronous_commit the server runs with.
      if (scenario.crashesDatabase) await db.admin.query('CHECKPOINT');
      at('driving the clients');
      // TTL and expiry are judged on the database's clock; a black box's clock is its own.
      const clock = spec.blackBox ? UNMEASURED_CLOCK : await measureClockMapping(db.admin);
      const deadline = new CaseDeadline(settings.timeoutMs);
      const history = new HistoryRecorder<Call, Answer>(clock);
      const on = { spec, settings, db, schema, history, deadline, ...(pool ? { pool } : {}) };
      const driven = await withinCaseDeadline(drive(on), deadline, db);
      return measureCase(on, driven, judgeBlocking, at);
    },
    broken: (problem, keptSchema) => ({
      ...identityOf(spec),
      status: 'broken',
      outcomes: {},
      invariants: null,
      boundary: problem,
      problems: [problem],
      ...(keptSchema ? { keptSchema } : {}),
    }),
  });
}
