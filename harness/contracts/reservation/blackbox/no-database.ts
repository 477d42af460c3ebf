/**
 * A run against a black box has no database of its own: this stands where a case expects its run database.
 * Case "schemas" are only labels (for node identities); anything that would reach a database — a query, a
 * connection to `connectionString` (an address under .invalid, which never resolves) — fails with one line
 * instead of touching some server by accident.
 */
import type pg from 'pg';
import type { RunDatabase } from '../../../database/database.ts';
import { NO_DATABASE_SESSION } from './http-black-box.ts';

export function noDatabase(): RunDatabase {
  let cases = 0;
  return {
    name: 'none (black box)',
    connectionString: 'postgresql://no-database.invalid:1/black-box',
    admin: NO_DATABASE_SESSION as pg.Client,
    async createCaseSchema(label) {
      cases += 1;
      return `c${String(cases).padStart(3, '0')}_${label.toLowerCase().replace(/[^a-z0-9]+/g, '_')}`.slice(
        0,
        63,
      );
    },
    async dropCaseSchema() {},
    async close() {
      return [];
    },
  };
}
