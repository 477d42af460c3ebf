/** How a step ended: the recorded result, plus what the tester prints of it. */
import { sqlstateOf } from '../../strategies/support/sqlstate.ts';
import { oneLine } from '../errors.ts';
import type { ResultTable, ServerMessage, StepResult } from './permutation.ts';
import { serverMessageOf } from './server-message.ts';

export interface Outcome {
  result: StepResult;
  tables: ResultTable[];
  error?: ServerMessage;
}

export const ok = (result: StepResult): Outcome => ({ result, tables: [] });

export function failure(error: unknown): Outcome {
  const sqlstate = sqlstateOf(error);
  return {
    result: { status: 'error', error: oneLine(error), ...(sqlstate ? { sqlstate } : {}) },
    tables: [],
    error: serverMessageOf(error),
  };
}
