/** Checks and conversions of command-line values shared by the commands: bad values exit 2 with one line. */
import type { StrategyRef } from '../../strategies/contract.ts';
import { Errors } from '../errors.ts';
import { loadAllBuiltIn, loadStrategy } from '../registry/registry.ts';

/** Each client holds its own connection; the embedded server allows 300 and the harness needs a few. */
export const MAX_CLIENTS = 250;
export const MAX_STOCK = 1_000_000;
export const MAX_REPEAT = 1000;

export function list(values: readonly string[] | undefined): string[] {
  return (values ?? [])
    .flatMap((v) => String(v).split(','))
    .map((v) => v.trim())
    .filter(Boolean);
}

export function boundedInteger(name: string, value: unknown, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw Errors.badInput(`--${name} must be a whole number from ${min} to ${max}, got "${String(value)}"`);
  }
  return n;
}

export async function resolveStrategies(names: string[]): Promise<StrategyRef[]> {
  if (names.length === 0) return loadAllBuiltIn();
  const refs = await Promise.all(names.map(loadStrategy));
  const ids = refs.map((r) => r.strategy.id);
  const dup = ids.find((id, i) => ids.indexOf(id) !== i);
  if (dup) throw Errors.badInput(`strategy id "${dup}" is given twice`);
  return refs;
}

/** `--database-url`, else DATABASE_URL, else none (the embedded server). */
export function databaseUrlFrom(args: { 'database-url'?: string }): string | undefined {
  return args['database-url'] || process.env.DATABASE_URL || undefined;
}
