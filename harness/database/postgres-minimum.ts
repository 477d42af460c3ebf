/**
 * A design's oldest PostgreSQL (`Strategy.minPostgres`), checked against the server the run is on: below
 * it, every case of the design is n/a with the reason, on an embedded server of an older major and on a
 * `--database-url` server alike (the server's own `server_version_num` decides, never the option asked).
 */
import type { Strategy } from '../../strategies/contract.ts';

/** `server_version_num` as the server prints its version: 150018 → `15.18`. */
export function postgresVersionText(serverVersionNum: number): string {
  return `${Math.floor(serverVersionNum / 10_000)}.${serverVersionNum % 10_000}`;
}

/** Why the design cannot run on this server, or undefined when it can (or no server is known). */
export function belowMinimum(strategy: Strategy, serverVersionNum: number | undefined): string | undefined {
  const minimum = strategy.minPostgres;
  if (!minimum || serverVersionNum === undefined) return undefined;
  if (Math.floor(serverVersionNum / 10_000) >= minimum.major) return undefined;
  return `needs PostgreSQL ${minimum.major} (${minimum.needs}); the server is ${postgresVersionText(serverVersionNum)}`;
}
