/** A fresh database on the shared test server for one test file, dropped again afterwards. */
import type pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { openRunDatabase, type RunDatabase } from '../harness/database/database.ts';

export function useRunDatabase(): { db: () => RunDatabase; admin: () => pg.Client } {
  let db: RunDatabase | undefined;
  beforeAll(async () => {
    db = await openRunDatabase({ databaseUrl: inject('serverUrl') });
  });
  afterAll(async () => {
    await db?.close({ keep: false });
  });
  const get = () => {
    if (!db) throw new Error('database not open yet');
    return db;
  };
  return { db: get, admin: () => get().admin };
}
