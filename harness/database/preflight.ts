/**
 * Before any case: does the server let the run open the connections its biggest scenario needs? A server
 * with the default max_connections = 100 (or a role with a CONNECTION LIMIT) would otherwise fail the
 * many-client cases with 53300 halfway through the run; this says what to set instead, in one line.
 * `run` checks its biggest scenario's clients, `bench` its biggest client count, `serve` its two pools.
 */
import type pg from 'pg';
import { Errors } from '../errors.ts';

/** The harness's own connections beside the clients: admin, control, final read, a lifecycle job, a pool. */
export const HARNESS_CONNECTIONS = 10;

/**
 * `clients`: the connections the command opens besides the harness's own; `instead`: the other way out,
 * named by the command's own option. Returns the connections the run may open in all (the server's room
 * and the role's, whichever is less), for running cases side by side within it.
 */
export async function checkConnectionRoom(
  admin: pg.Client,
  clients: number,
  instead = 'give fewer --clients',
): Promise<number> {
  const needed = clients + HARNESS_CONNECTIONS;
  const { rows } = await admin.query<{
    max: number;
    reserved: number;
    used: number;
    role: string;
    role_limit: number;
    role_used: number;
    superuser: boolean;
  }>(`SELECT current_setting('max_connections')::int AS max,
             current_setting('superuser_reserved_connections')::int AS reserved,
             (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')::int AS used,
             r.rolname AS role, r.rolconnlimit AS role_limit, r.rolsuper AS superuser,
             (SELECT count(*) FROM pg_stat_activity
               WHERE usename = current_user AND backend_type = 'client backend')::int AS role_used
        FROM pg_roles r WHERE r.rolname = current_user`);
  const s = rows[0];
  if (!s) return needed;
  const serverRoom = s.max - (s.superuser ? 0 : s.reserved) - s.used;
  if (serverRoom < needed) {
    throw Errors.badInput(
      `the server allows ${serverRoom} more connections (max_connections ${s.max}, ${s.used} in use) but the run needs ${needed}: set max_connections to at least ${s.used + needed + (s.superuser ? 0 : s.reserved)}, or ${instead}`,
    );
  }
  if (s.role_limit < 0) return serverRoom;
  const roleRoom = s.role_limit - s.role_used;
  if (roleRoom < needed) {
    throw Errors.badInput(
      `role ${s.role} may open ${roleRoom} more connections (CONNECTION LIMIT ${s.role_limit}) but the run needs ${needed}: raise it to at least ${s.role_used + needed}, or ${instead}`,
    );
  }
  return Math.min(serverRoom, roleRoom);
}
