/** How a case's sessions reach its tables, and a barrier's handle: plain data, cloneable across threads. */
import type { IsolationLevel } from '../../strategies/contract.ts';

export interface CaseConnection {
  connectionString: string;
  /** The case's schema; every session sets it as search_path so it only sees the case's tables. */
  schema: string;
  /** Every session's default_transaction_isolation (`run --isolation`); the server's default when absent. */
  isolation?: IsolationLevel;
  /** Session settings a scenario puts under test (e.g. synchronous_commit). */
  settings?: Readonly<Record<string, string>>;
  /** Each client also gets a session on a standby of the cluster (SessionContext.standby). */
  standby?: true;
}

/** Startup options of a case's session: its schema, and the isolation level the run puts it at. */
export function sessionOptions(connection: {
  schema: string;
  isolation?: IsolationLevel | undefined;
  settings?: Readonly<Record<string, string>> | undefined;
}): string {
  // A space inside a startup option is escaped with a backslash.
  const level = connection.isolation
    ? ` -c default_transaction_isolation=${connection.isolation.replace('-', '\\ ')}`
    : '';
  const settings = Object.entries(connection.settings ?? {})
    .map(([name, value]) => ` -c ${name}=${value}`)
    .join('');
  return `-c search_path=${connection.schema}${level}${settings}`;
}

export interface BarrierHandle {
  buffer: SharedArrayBuffer;
  parties: number;
}
