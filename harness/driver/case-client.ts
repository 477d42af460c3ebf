/**
 * A connection of the harness's own to a case's schema (the final read, a scenario's own sessions, a
 * proxied one): its schema as search_path, the case's isolation level and settings, and an error handler,
 * so that a server ending the session never ends the process.
 */
import pg from 'pg';
import { type CaseConnection, sessionOptions } from './case-connection.ts';

/** A client of the case's schema, not yet connected; through `connectionString` when given (a proxy). */
export function caseClient(
  connection: CaseConnection,
  applicationName: string,
  connectionString = connection.connectionString,
): pg.Client {
  const client = new pg.Client({
    connectionString,
    application_name: applicationName,
    options: sessionOptions(connection),
  });
  client.on('error', () => undefined);
  return client;
}

/** `work` on a connection of its own to the case's schema, closed afterwards. */
export async function withCaseClient<T>(
  connection: CaseConnection,
  applicationName: string,
  work: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = caseClient(connection, applicationName);
  try {
    await client.connect();
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}
