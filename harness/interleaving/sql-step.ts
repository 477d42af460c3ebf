/**
 * Raw SQL as the isolation tester sends it: a step's SQL, whose every result set is printed, and the
 * setup and teardown SQL around a permutation, of which only the last result is.
 */
import pg from 'pg';
import type { ResultTable } from './permutation.ts';
import { serverMessageOf } from './server-message.ts';
import { failure, type Outcome } from './step-outcome.ts';

/** Values exactly as the server sent them, for output that must match the tester's byte for byte. */
const RAW_TEXT = {
  getTypeParser: () => (value: string) => value,
} as unknown as pg.CustomTypesConfig;

type RawResult = pg.QueryArrayResult<(string | null)[]>;

/** Every result of the (possibly several) statements in `sql`, in order. */
async function send(client: pg.Client, sql: string): Promise<RawResult[]> {
  const answer: unknown = await client.query({ text: sql, rowMode: 'array', types: RAW_TEXT });
  return (Array.isArray(answer) ? answer : [answer]) as RawResult[];
}

const tableOf = (r: RawResult): ResultTable => ({ columns: r.fields.map((f) => f.name), rows: r.rows });

/** Rows as the driver would have parsed them, for the step records. */
function parsedRows(r: RawResult): Record<string, unknown>[] {
  const parsers = r.fields.map((f) =>
    pg.types.getTypeParser(f.dataTypeID, f.format === 'binary' ? 'binary' : 'text'),
  );
  return r.rows.map((values) =>
    Object.fromEntries(
      r.fields.map((f, i) => {
        const value = values[i];
        return [f.name, value === null || value === undefined ? null : parsers[i]?.(value)];
      }),
    ),
  );
}

export async function runSql(client: pg.Client, sql: string): Promise<Outcome> {
  try {
    const withRows = (await send(client, sql)).filter((r) => r.fields.length > 0);
    const last = withRows.at(-1);
    return { result: { status: 'ok', rows: last ? parsedRows(last) : [] }, tables: withRows.map(tableOf) };
  } catch (error: unknown) {
    return failure(error);
  }
}

export type FrameResult = { tables: ResultTable[] } | { error: string };

/** Setup and teardown SQL, which the tester sends with PQexec: only the last result is shown. */
export async function runFrameSql(client: pg.Client, sql: string): Promise<FrameResult> {
  try {
    const last = (await send(client, sql)).at(-1);
    return { tables: last && last.fields.length > 0 ? [tableOf(last)] : [] };
  } catch (error: unknown) {
    return { error: serverMessageOf(error).message };
  }
}
