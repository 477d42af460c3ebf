/** What a failing run against --database-url kept: its databases, read off its stderr, and their case schemas. */
import pg from 'pg';
import { dropOwnedDatabase } from '../harness/database/database.ts';

/** The databases a run's stderr says it kept (`kept database <name> on <server>`). */
export function keptDatabasesOf(stderr: string): string[] {
  return [...stderr.matchAll(/^kept database (reservebench_\w+) on /gm)].map((m) => m[1] as string);
}

async function onDatabase<T>(serverUrl: string, database: string, use: (c: pg.Client) => Promise<T>) {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  return use(client).finally(() => client.end());
}

/** Each schema a case left in the databases (`c<n>_…`), sorted. */
export async function caseSchemasIn(serverUrl: string, databases: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const database of databases) {
    const { rows } = await onDatabase(serverUrl, database, (c) =>
      c.query<{ name: string }>("SELECT nspname AS name FROM pg_namespace WHERE nspname ~ '^c[0-9]+_'"),
    );
    found.push(...rows.map((r) => r.name));
  }
  return found.sort();
}

/** Drops what the run kept, as `reservebench clean` would. */
export async function dropKeptDatabases(serverUrl: string, databases: readonly string[]): Promise<void> {
  const server = new pg.Client({ connectionString: serverUrl });
  await server.connect();
  try {
    for (const database of databases) await dropOwnedDatabase(server, database);
  } finally {
    await server.end();
  }
}
