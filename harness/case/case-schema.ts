/**
 * One case of any contract on fresh tables: a schema of its own in the run database, the contract's work
 * on it (the design's setup, the drive within the case's deadline, the final read, the audit, the
 * verdict), and what becomes of the schema after. A failure at any stage makes the case broken, naming
 * the stage (`work` says which stage it is in); the schema is dropped unless the result keeps it for
 * inspection (a failed case, or every case with `--keep`).
 */
import type { CaseSettings } from '../contract/case-settings.ts';
import type { RunDatabase } from '../database/database.ts';
import { oneLine } from '../errors.ts';
import { InvalidPermutation } from '../interleaving/engine.ts';
import type { CaseResultBase } from '../verdict/case-result.ts';

/** Whether a case that ended `status` keeps its tables: every case with --keep, else a failed one. */
export function keepsTables(settings: CaseSettings, status: 'pass' | 'fail'): boolean {
  return settings.keepAll === true || (status === 'fail' && settings.keepFailed);
}

export interface CaseOnSchemaWork<R> {
  /** The schema's name before the run's prefix: `<scenario>_<design>`. */
  name: string;
  /** The case on `schema`; `at(stage)` names each stage as it begins, for a failure's line. */
  work(schema: string, at: (stage: string) => void): Promise<R>;
  /** The result of a case broken at a stage: its one line, and the schema kept for inspection, if any. */
  broken(problem: string, keptSchema: string | undefined): R;
}

export async function onCaseSchema<R extends CaseResultBase>(
  db: RunDatabase,
  settings: CaseSettings,
  run: CaseOnSchemaWork<R>,
): Promise<R> {
  const schema = await db.createCaseSchema(run.name);
  let keep = settings.keepFailed;
  let stage = 'setup';
  try {
    const result = await run.work(schema, (next) => {
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
    return run.broken(`${stage} failed: ${oneLine(error)}`, keep ? schema : undefined);
  } finally {
    await db.admin.query('RESET search_path').catch(() => undefined);
    if (!keep) await db.dropCaseSchema(schema);
  }
}
