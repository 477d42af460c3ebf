/** What `reservebench sql` does (its options: sql-options.ts), imported only when it runs. */

import { basename } from 'node:path';
import { createInterface } from 'node:readline/promises';
import pg from 'pg';
import { leftovers } from '../../database/clean.ts';
import { OWNED_MARKER, withDatabase } from '../../database/database.ts';
import { startKeptServer } from '../../database/embedded-server.ts';
import { redact } from '../../database/redact.ts';
import type { StateFile } from '../../database/run-state.ts';
import { Errors, EXIT, oneLine } from '../../errors.ts';
import { sayOnInterrupt } from '../../interrupted.ts';
import { renderBoxTable } from '../../report/box-table.ts';
import type { SqlArgs } from './sql-options.ts';

function kept(): StateFile[] {
  return leftovers().filter(({ state }) => state.kept && state.serverUrl);
}

function label({ state }: StateFile): string {
  return state.dataDir ?? `${state.database} on ${redact(state.serverUrl ?? '')}`;
}

function choose(name: string | undefined): StateFile {
  const all = kept();
  if (all.length === 0) throw Errors.badInput('no run kept its data (a failing run or --keep does)');
  const matching =
    name === undefined
      ? all
      : all.filter(({ state }) =>
          [state.dataDir, state.dataDir && basename(state.dataDir), state.database].includes(name),
        );
  if (matching.length === 1 && matching[0]) return matching[0];
  const choices = all.map(label).join(', ');
  throw Errors.badInput(
    name === undefined
      ? `name the kept run to open: ${choices}`
      : `no kept run is named ${JSON.stringify(name)}; kept: ${choices}`,
  );
}

/** The run database on a kept server: the one database the suite marked as its own. */
async function runDatabase(serverUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: serverUrl, application_name: 'reservebench-sql' });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE shobj_description(oid, 'pg_database') = $1 ORDER BY datname DESC",
      [OWNED_MARKER],
    );
    return rows[0]?.datname ?? 'postgres';
  } finally {
    await client.end();
  }
}

function render(result: pg.QueryResult): string {
  if (!result.fields?.length)
    return `${result.command ?? 'OK'}${result.rowCount ? ` ${result.rowCount}` : ''}`;
  const table = renderBoxTable({
    head: result.fields.map((f) => f.name),
    rows: (result.rows as Record<string, unknown>[]).map((row) =>
      result.fields.map((f) => (row[f.name] === null ? '' : String(row[f.name]))),
    ),
  });
  return `${table}\n(${result.rowCount} row${result.rowCount === 1 ? '' : 's'})`;
}

async function execute(client: pg.Client, sql: string): Promise<boolean> {
  try {
    const results = (await client.query(sql)) as pg.QueryResult | pg.QueryResult[];
    for (const result of Array.isArray(results) ? results : [results])
      process.stdout.write(`${render(result)}\n`);
    return true;
  } catch (error: unknown) {
    process.stderr.write(`ERROR: ${oneLine(error)}\n`);
    return false;
  }
}

async function prompt(client: pg.Client, database: string): Promise<boolean> {
  const lines = createInterface({ input: process.stdin, output: process.stdout });
  let ok = true;
  let statement = '';
  try {
    for (;;) {
      const line = await lines.question(statement ? `${database}-> ` : `${database}=> `).catch(() => null);
      if (line === null || (!statement && /^\s*\\q\s*$/.test(line))) return ok;
      statement += `${line}\n`;
      if (/;\s*$/.test(line)) {
        ok = (await execute(client, statement)) && ok;
        statement = '';
      }
    }
  } finally {
    lines.close();
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function sqlCommand(args: SqlArgs): Promise<number> {
  const sql = args.command;
  const { state } = choose(args.kept);
  sayOnInterrupt(
    `stopping ${state.dataDir ? 'the kept server' : 'the session'}; the kept run stays as it is`,
  );
  const server = state.dataDir ? await startKeptServer(state.dataDir) : undefined;
  try {
    const url = new URL(state.serverUrl ?? '');
    if (server) url.port = String(server.port);
    const database = state.database ?? (await runDatabase(url.href));
    const client = new pg.Client({
      connectionString: withDatabase(url.href, database),
      application_name: 'reservebench-sql',
    });
    // A session lost while idle at the prompt (a signal stops the kept server under it) must not throw
    // out of the process before the exit hook has stopped that server; a statement sent later fails.
    client.on('error', () => undefined);
    await client.connect();
    try {
      process.stderr.write(
        `connected to ${database}${server ? ` (kept server ${state.dataDir}, stopped again on exit)` : ''}; each case's tables are in its own schema: SET search_path TO <schema>\n`,
      );
      const ok =
        sql !== undefined
          ? await execute(client, sql)
          : process.stdin.isTTY
            ? await prompt(client, database)
            : await execute(client, await readStdin());
      return ok ? EXIT.ok : EXIT.expectationFailed;
    } finally {
      await client.end().catch(() => undefined);
    }
  } finally {
    await server?.stop();
  }
}
