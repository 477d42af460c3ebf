/**
 * BEGIN and a transaction's first statement in one round trip, with the semantics of sending them one
 * after the other. Both go as one extended-protocol batch with a single Sync at its end: the server runs
 * BEGIN, then the statement inside the transaction BEGIN opened; should BEGIN fail, the server discards
 * the rest up to the Sync, so the statement never runs outside a transaction; should the statement fail,
 * the transaction is left aborted, exactly as after two round trips. (pg's own `pipeline` mode would not
 * do: it ends every query with its own Sync, so a failed BEGIN would leave the statement to autocommit.)
 *
 * The batch only binds and executes: it is used once BEGIN and the statement are parsed on the connection
 * (named statements outlive transactions and rollbacks). Until then, and on any connection that is not
 * node-postgres's own, the two go one after the other. The pgbench side of the yardstick sends the same
 * batch with `\startpipeline … \endpipeline`.
 */
import type { ClientBase, Connection, Submittable } from 'pg';

export interface NamedStatement {
  name: string;
  text: string;
}

const BEGIN: NamedStatement = { name: 'reservebench-begin', text: 'BEGIN' };

/** Per connection: the statements already parsed by a first, one-after-the-other BEGIN + statement. */
const parsed = new WeakMap<ClientBase, Set<string>>();

/** The rows a command reported (`INSERT 0 1` → 1, `UPDATE 3` → 3), or null for one that reports none. */
function rowCountOf(commandTag: string): number | null {
  const count = /^(?:INSERT \d+|UPDATE|DELETE|SELECT|MERGE|COPY|FETCH|MOVE) (\d+)$/.exec(commandTag)?.[1];
  return count === undefined ? null : Number(count);
}

/** Bind + Execute of BEGIN and of the statement, one Sync: settles with the statement's row count. */
class BeginThen implements Submittable {
  readonly done: Promise<number | null>;
  private settle!: { resolve: (rows: number | null) => void; reject: (error: unknown) => void };
  private rowCount: number | null = null;

  constructor(
    private readonly statement: NamedStatement,
    private readonly values: readonly unknown[],
  ) {
    this.done = new Promise((resolve, reject) => {
      this.settle = { resolve, reject };
    });
  }

  submit(connection: Connection): void {
    const stream = connection.stream as { cork?: () => void; uncork?: () => void };
    stream.cork?.();
    try {
      connection.bind({ statement: BEGIN.name, values: [] }, true);
      connection.execute({ portal: '' }, true);
      connection.bind(
        {
          statement: this.statement.name,
          values: this.values.map((v) => (v === null || v === undefined ? null : String(v))),
        },
        true,
      );
      connection.execute({ portal: '' }, true);
      connection.sync();
    } finally {
      stream.uncork?.();
    }
  }

  handleCommandComplete(message: { text: string }): void {
    if (message.text !== 'BEGIN') this.rowCount = rowCountOf(message.text);
  }

  handleReadyForQuery(): void {
    this.settle.resolve(this.rowCount);
  }

  /** node-postgres calls this with the server's error (then not handleReadyForQuery) or a lost connection. */
  handleError(error: unknown): void {
    this.settle.reject(error);
  }

  // The batch asks for no row description and sends no Describe: no rows, no copy, no portal suspended.
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(): void {}
  handleCopyData(): void {}
}

const isNodePostgresClient = (db: ClientBase) =>
  typeof (db as { connection?: { bind?: unknown } }).connection?.bind === 'function';

/**
 * BEGIN, then `statement` with `values` inside the new transaction; resolves with the statement's row
 * count. Rejects with the statement's error (its SQLSTATE intact) when it fails: the transaction is then
 * open and aborted, and the caller rolls it back, as after `BEGIN` and the statement sent one by one.
 */
export async function beginWith(
  db: ClientBase,
  statement: NamedStatement,
  values: readonly unknown[],
): Promise<number | null> {
  const known = parsed.get(db);
  if (known?.has(statement.name) && isNodePostgresClient(db)) {
    const batch = new BeginThen(statement, values);
    db.query(batch);
    return batch.done;
  }
  await db.query(BEGIN);
  const { rowCount } = await db.query({ ...statement, values: [...values] });
  // Parsed now on this connection, both of them (this point is reached only when the statement ran).
  if (known) known.add(statement.name);
  else parsed.set(db, new Set([statement.name]));
  return rowCount;
}
