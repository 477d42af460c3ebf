/**
 * Whether a commit waits for its WAL flush (`synchronous_commit`), as production commits do. A run and a
 * bench are durable unless told otherwise: without the flush each row lock is held for less time than
 * it is in production, and a design's throughput and its lock waits are flattered by the difference.
 * Set on the run database itself, so every session of every path (clients, interleavings, the HTTP
 * service, crash children, the final read) starts with it; a scenario that puts the setting under test
 * (db-crash-async) overrides it in its own sessions.
 */
export const DURABILITIES = ['on', 'off'] as const;
export type Durability = (typeof DURABILITIES)[number];
export const DEFAULT_DURABILITY: Durability = 'on';

/** The line every report and table head carries, from the setting the run read back on its database. */
export function commitsLine(settings: Readonly<Record<string, string>>): string {
  const setting = settings.synchronous_commit ?? 'unknown';
  return setting === 'off'
    ? 'Commits: not durable (synchronous_commit = off): a commit does not wait for its WAL flush, so locks are held for less time than in production'
    : `Commits: durable (synchronous_commit = ${setting}): each commit waits for its WAL flush, as in production`;
}
