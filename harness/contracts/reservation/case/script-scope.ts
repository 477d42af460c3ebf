/**
 * What every part of a script scenario's context works on: the run database and the worker-thread driver,
 * the strategy, the case's schema and the settings of its sessions, the case's own sessions, and the
 * record every part writes what the scenario drove into.
 */
import type { StrategyRef } from '../../../../strategies/contract.ts';
import type { RunDatabase } from '../../../database/database.ts';
import type { CaseConnection } from '../../../driver/case-connection.ts';
import type { ClientDriver, QueueClock } from '../driver/client-pool.ts';
import type { CaseRecord } from './case-record.ts';
import type { ScenarioParams } from './scenario.ts';
import type { ScriptSessions } from './script-sessions.ts';

export interface ScriptScope {
  db: RunDatabase;
  pool: ClientDriver;
  ref: StrategyRef;
  params: ScenarioParams;
  /** Every session the scenario opens: the case's schema, isolation level and the settings under test. */
  connection: CaseConnection;
  /** How long any wait of the scenario may take. */
  timeoutMs: number;
  /** The case's deadline, paused while the scenario's clients wait for the worker threads. */
  deadline: QueueClock;
  sessions: ScriptSessions;
  record: CaseRecord;
}
