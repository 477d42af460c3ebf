/**
 * A design's oldest PostgreSQL (its `minPostgres`, whatever its contract), checked against the server the
 * run is on: below it, every case of the design is n/a with the reason, on an embedded server of an older major and on a
 * `--database-url` server alike (the server's own `server_version_num` decides, never the option asked).
 */

/** What a design declares of the oldest PostgreSQL it runs on: the major, and what it needs of it. */
interface PostgresMinimum {
  minPostgres?: { major: number; needs: string } | undefined;
}

/** `server_version_num` as the server prints its version: 150018 → `15.18`. */
export function postgresVersionText(serverVersionNum: number): string {
  return `${Math.floor(serverVersionNum / 10_000)}.${serverVersionNum % 10_000}`;
}

/** Why the design cannot run on this server, or undefined when it can (or no server is known). */
export function belowMinimum(
  design: PostgresMinimum,
  serverVersionNum: number | undefined,
): string | undefined {
  const minimum = design.minPostgres;
  if (!minimum || serverVersionNum === undefined) return undefined;
  if (Math.floor(serverVersionNum / 10_000) >= minimum.major) return undefined;
  return `needs PostgreSQL ${minimum.major} (${minimum.needs}); the server is ${postgresVersionText(serverVersionNum)}`;
}
