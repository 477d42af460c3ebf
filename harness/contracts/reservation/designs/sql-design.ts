/**
 * A design written as one SQL file (`--strategy design.sql`), adapted to the `Strategy` contract: its
 * header declares what a module's data members say, its functions are the operations, and the adapter
 * implements exactly the operations the file defines. Every call is one statement on the session's own
 * connection; the pause points the function body passes are held through the barrier of
 * sql-pause-barrier.ts. A worker thread rebuilds the design from the file's URL, as it re-imports a module.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ClientBase } from 'pg';
import { z } from 'zod';
import {
  type OUTCOMES,
  type PausingOperation,
  type ReservationStatus,
  type ReserveResult,
  type SessionContext,
  STATUSES,
  type Strategy,
  type StrategyAudit,
} from '../../../../strategies/contract.ts';
import { Errors, oneLine } from '../../../errors.ts';
import { checkStrategy } from '../../../registry/strategy-module.ts';
import { type SqlFunction, sqlDesignFunctions } from './sql-design-functions.ts';
import { parseSqlDesignHeader } from './sql-design-header.ts';
import { callWithPauses, PAUSE_FUNCTION_SQL } from './sql-pause-barrier.ts';

/** Named, so each connection parses them once; the same texts for every design in SQL. */
const CALL = {
  reserve: { name: 'reservebench-sql-reserve', text: 'SELECT outcome, status FROM reserve($1, $2, $3, $4)' },
  confirm: { name: 'reservebench-sql-confirm', text: 'SELECT confirm($1) AS value' },
  release: { name: 'reservebench-sql-release', text: 'SELECT release($1) AS value' },
  expire: { name: 'reservebench-sql-expire', text: 'SELECT expire() AS value' },
  disable: { name: 'reservebench-sql-disable', text: 'SELECT disable($1) AS value' },
  status: { name: 'reservebench-sql-status', text: 'SELECT status($1) AS value' },
  remaining: { name: 'reservebench-sql-remaining', text: 'SELECT remaining($1) AS value' },
} as const;
const LOAD_STOCK = 'SELECT load_stock(sku, total) FROM unnest($1::text[], $2::int[]) AS stock(sku, total)';
const BACKDATE = 'SELECT backdate($1::text[])';
const AUDIT = 'SELECT audit() AS audit';

const count = z.number().int();
const auditSchema = z.strictObject({
  skus: z.array(z.strictObject({ sku: z.string(), total: count, available: count, active: count })),
  duplicateActive: count,
  duplicateKey: count,
  activeKeys: z.array(z.string()),
  endedKeys: z.array(z.string()),
  books: z
    .strictObject({
      reconciled: z.boolean(),
      ledgerReplayDrift: z.number(),
      skus: z.array(z.strictObject({ sku: z.string(), frozen: count, sold: count })).optional(),
    })
    .optional(),
});

/** The one value a function call returned; a call that returned no row is the design's error. */
async function calledValue<T>(db: ClientBase, call: { name: string; text: string }, values: unknown[]) {
  const { rows } = await db.query<{ value: T }>({ ...call, values });
  if (rows.length !== 1) throw new Error(`${call.text} returned ${rows.length} rows`);
  return rows[0]?.value as T;
}

async function reserveIn(db: ClientBase, values: unknown[]): Promise<ReserveResult> {
  const { rows } = await db.query<{ outcome: string; status: string | null }>({ ...CALL.reserve, values });
  const row = rows[0];
  if (rows.length !== 1 || !row) throw new Error(`reserve() returned ${rows.length} rows, not one`);
  // The driver checks the outcome and status against the contract, as for a module's answer.
  return {
    outcome: row.outcome as (typeof OUTCOMES)[number],
    ...(row.status === null ? {} : { status: row.status as ReservationStatus }),
  };
}

async function statusIn(db: ClientBase, requestKey: string): Promise<ReservationStatus | 'NOT_FOUND'> {
  const status = await calledValue<string | null>(db, CALL.status, [requestKey]);
  if (status === null || status === 'NOT_FOUND') return 'NOT_FOUND';
  if (!(STATUSES as readonly string[]).includes(status)) {
    throw new Error(`status() answered "${status}", not a status of the contract`);
  }
  return status as ReservationStatus;
}

async function auditIn(db: ClientBase): Promise<StrategyAudit> {
  const { rows } = await db.query<{ audit: unknown }>(AUDIT);
  const parsed = auditSchema.safeParse(rows[0]?.audit);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`audit() returned no audit: ${issue?.path.join('.') || 'its value'} ${issue?.message}`);
  }
  return parsed.data;
}

/** The optional operations, each only when the file defines its function. */
function lifecycle(declaration: { pausePoints: Strategy['pausePoints'] }, defined: ReadonlySet<SqlFunction>) {
  const pausing =
    <A extends unknown[], T>(op: PausingOperation, call: (db: ClientBase, ...args: A) => Promise<T>) =>
    (ctx: SessionContext, ...args: A) =>
      callWithPauses(ctx, declaration.pausePoints[op] ?? [], () => call(ctx.db, ...args));
  const has = (name: SqlFunction) => defined.has(name);
  return {
    reserve: (ctx: SessionContext, request: Parameters<Strategy['reserve']>[1]) =>
      pausing('reserve', (db) =>
        reserveIn(db, [request.requestKey, request.user, request.sku, request.ttlMs]),
      )(ctx),
    ...(has('confirm')
      ? { confirm: pausing('confirm', (db, key: string) => calledValue<boolean>(db, CALL.confirm, [key])) }
      : {}),
    ...(has('release')
      ? { release: pausing('release', (db, key: string) => calledValue<boolean>(db, CALL.release, [key])) }
      : {}),
    ...(has('expire') ? { expire: pausing('expire', (db) => calledValue<number>(db, CALL.expire, [])) } : {}),
    ...(has('disable')
      ? { disable: pausing('disable', (db, sku: string) => calledValue<boolean>(db, CALL.disable, [sku])) }
      : {}),
    ...(has('backdate')
      ? {
          backdate: async (db: ClientBase, keys: readonly string[]) => {
            await db.query(BACKDATE, [keys]);
          },
        }
      : {}),
  };
}

/** The design in the SQL file `text`, `file` being how the user named it (for its one-line errors). */
export function sqlDesign(file: string, text: string): Strategy {
  const declaration = parseSqlDesignHeader(file, text);
  const defined = sqlDesignFunctions(file, text, declaration);
  const strategy: Strategy = {
    ...declaration,
    setup: async (db, stock) => {
      await db.query(PAUSE_FUNCTION_SQL);
      await db.query(text);
      await db.query(LOAD_STOCK, [stock.map((s) => s.sku), stock.map((s) => s.total)]);
    },
    ...lifecycle(declaration, defined),
    status: statusIn,
    remaining: (db, sku) => calledValue<number>(db, CALL.remaining, [sku]),
    audit: auditIn,
  };
  const checked = checkStrategy(strategy);
  if ('problem' in checked) throw Errors.badInput(`${file} is not a valid design: ${checked.problem}`);
  return checked.strategy;
}

/** The design at a file URL (what a worker thread is given), read again from the file. */
export function sqlDesignAt(fileUrl: string, shownAs: string): Strategy {
  let text: string;
  try {
    text = readFileSync(fileURLToPath(fileUrl), 'utf8');
  } catch (error: unknown) {
    throw Errors.badInput(`cannot read strategy file ${shownAs}: ${oneLine(error)}`);
  }
  return sqlDesign(shownAs, text);
}
