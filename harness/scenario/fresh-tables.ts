/**
 * One drive of a case on fresh tables: a schema of its own, the strategy's setup with the scenario's
 * stock, the drive within the case's deadline, then the measuring and judging. A failure at any stage
 * makes the case broken, naming the stage; the schema is dropped unless it is kept for inspection.
 */
import type { RunDatabase } from '../database/database.ts';
import type { ClientDriver } from '../driver/client-pool.ts';
import { oneLine } from '../errors.ts';
import { HistoryRecorder, measureClockMapping, UNMEASURED_CLOCK } from '../history/recorder.ts';
import { InvalidPermutation } from '../interleaving/engine.ts';
import type { CaseResult } from '../verdict/case-result.ts';
import { CaseDeadline, withinCaseDeadline } from './case-deadline.ts';
import { type CaseOnSchema, type CaseSettings, type CaseSpec, identityOf } from './case-spec.ts';
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
  const schema = await db.createCaseSchema(`${scenario.id}_${strategy.id}`);
  let keep = settings.keepFailed;
  let stage = 'setup';
  try {
    // A black box has no tables here: its setup loads the stock through its own way (reset, command).
    if (!spec.blackBox) await db.admin.query(`SET search_path TO ${schema}`);
    await strategy.setup(db.admin, spec.params.stock);
    // The crash under test is the clients'; the tables themselves must survive it, whatever
    // synchronous_commit the server runs with.
    if (scenario.crashesDatabase) await db.admin.query('CHECKPOINT');
    stage = 'driving the clients';
    // TTL and expiry are judged on the database's clock; a black box's clock is its own.
    const clock = spec.blackBox ? UNMEASURED_CLOCK : await measureClockMapping(db.admin);
    const deadline = new CaseDeadline(settings.timeoutMs);
    const history = new HistoryRecorder(clock);
    const on = { spec, settings, db, schema, history, deadline, ...(pool ? { pool } : {}) };
    const driven = await withinCaseDeadline(drive(on), deadline, db);
    const result = await measureCase(on, driven, judgeBlocking, (next) => {
      stage = next;
    });
    keep = result.keptSchema !== undefined;
    return result;
  } catch (error: unknown) {
    if (error instanceof InvalidPermutation) {
      // An order the spec cannot take is no case: nothing of it is worth keeping.
      keep = false;
      throw error;
    }
    const problem = `${stage} failed: ${oneLine(error)}`;
    return {
      ...identityOf(spec),
      status: 'broken',
      outcomes: {},
      invariants: null,
      boundary: problem,
      problems: [problem],
      ...(keep ? { keptSchema: schema } : {}),
    };
  } finally {
    await db.admin.query('RESET search_path').catch(() => undefined);
    if (!keep) await db.dropCaseSchema(schema);
  }
}
