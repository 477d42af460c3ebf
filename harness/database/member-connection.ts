/**
 * Reaching the writable member of a replicated database. node-postgres takes one host per URL
 * (brianc/node-postgres#1470), so a cluster is given as libpq writes several hosts —
 * `postgresql://user:pw@h1:p1,h2:p2/db` — and a session finds its member itself, as libpq's
 * `target_session_attrs=read-write` does: it tries each host in turn and keeps the first that is out of
 * recovery and not read-only (memberRole). Session i starts at host i mod n (libpq's `load_balance_hosts` spreads
 * sessions the same way), so where two members are writable at once (split brain) the sessions split
 * between them instead of all landing on the first. A URL of one host is connected to as it is, with no
 * extra round trip.
 */
import pg from 'pg';
import { memberUrls } from './member-urls.ts';
import { pollUntil } from './poll-until.ts';

const MEMBER_CONNECT_MS = 5_000;

export type MemberRole = 'writable' | 'standby';

/**
 * What a member says of itself: in recovery, and whether its sessions are read-only. A member out of
 * recovery can still refuse writes: pg_auto_failover fences a standby it has just promoted with
 * `default_transaction_read_only` until the old primary is demoted (so that libpq's read-write sessions
 * pass it over), and a session of ours must pass it over too.
 */
export const MEMBER_ROLE_SQL =
  "SELECT pg_is_in_recovery() AS recovering, current_setting('transaction_read_only') = 'on' AS read_only";

export interface MemberRoleRow {
  recovering: boolean;
  read_only: boolean;
}

/** `writable`, `standby`, or undefined: out of recovery but read-only (fenced) or no answer. */
export function memberRole(row: MemberRoleRow | undefined): MemberRole | undefined {
  if (row?.recovering === true) return 'standby';
  return row?.recovering === false && !row.read_only ? 'writable' : undefined;
}

export interface MemberChoice {
  /** `writable` (default): a member out of recovery; `standby`: one in recovery (reads served by a standby). */
  role?: MemberRole;
  /** Try the hosts from this one on (mod their count): session i passes i. */
  prefer?: number;
  /** How long to keep looking while no member has the role (a failover under way); 0: one round. */
  waitMs?: number;
}

/** Connects to `url` as it is; an unreachable server throws. */
async function connectOne(config: pg.ClientConfig): Promise<pg.Client> {
  const client = new pg.Client(config);
  // A member that goes away under the session surfaces on its queries, never as an uncaught event.
  client.on('error', () => undefined);
  try {
    await client.connect();
    return client;
  } catch (error: unknown) {
    await client.end().catch(() => undefined);
    throw error;
  }
}

/** The member's session when it has the role asked for, else undefined (and the session closed). */
async function withRole(config: pg.ClientConfig, role: MemberRole): Promise<pg.Client | undefined> {
  // A member that does not answer at all (stopped mid-failover) is passed over, not waited on for long.
  const timeout = { connectionTimeoutMillis: config.connectionTimeoutMillis ?? MEMBER_CONNECT_MS };
  const client = await connectOne({ ...config, ...timeout }).catch(() => undefined);
  if (!client) return undefined;
  const answer = await client.query<MemberRoleRow>(MEMBER_ROLE_SQL).catch(() => undefined);
  if (memberRole(answer?.rows[0]) === role) return client;
  await client.end().catch(() => undefined);
  return undefined;
}

/**
 * A connected session on a member of `config.connectionString` with the role asked for. One host: that
 * server, whatever its role (the run was given one server). Several: the first, from `prefer` on, whose
 * own word (memberRole) says it has the role; while none has, it looks again until `waitMs` has passed
 * (each look is a connection attempt: what decides is the members' own answer, never the wait).
 */
export async function connectMember(config: pg.ClientConfig, choice: MemberChoice = {}): Promise<pg.Client> {
  const url = config.connectionString ?? '';
  const members = memberUrls(url);
  if (members.length === 1) return connectOne(config);
  const { role = 'writable', prefer = 0, waitMs = 0 } = choice;
  const lookRound = async (): Promise<pg.Client | undefined> => {
    for (let i = 0; i < members.length; i++) {
      const member = members[(prefer + i) % members.length] as string;
      const client = await withRole({ ...config, connectionString: member }, role);
      if (client) return client;
    }
    return undefined;
  };
  const client = await pollUntil(lookRound, { timeoutMs: waitMs, everyMs: 20 });
  if (!client) throw new Error(`no ${role} member among the ${members.length} of the cluster answered`);
  return client;
}
