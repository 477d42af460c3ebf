/**
 * The statement that sets a run database's durability (durability.ts), apart from the settings themselves:
 * the command line reads those with every start, and this needs PostgreSQL's client.
 */
import pg from 'pg';
import type { Durability } from './durability.ts';

/** The statement that makes `durability` the database's default for every session that starts on it. */
export function databaseDurabilityStatement(database: string, durability: Durability): string {
  return `ALTER DATABASE ${pg.escapeIdentifier(database)} SET synchronous_commit = ${durability}`;
}
