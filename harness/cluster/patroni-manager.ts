/**
 * `run --cluster patroni`: Patroni's REST API (`--cluster-api`, one base URL per member; any one answers
 * for the cluster) as the manager of a cluster the user runs. A failover is `POST /failover` naming the
 * candidate, a switchover `POST /switchover` naming the leader and the candidate; each is done when
 * Patroni's `GET /cluster` shows the candidate as the running leader — Patroni's own word, as its Jepsen
 * CI waits on it. The cluster is whole when `/cluster` shows a running leader, every other member running
 * or streaming, and (synchronous_mode) a sync standby. A member is matched to its URL by host and port.
 */

import { waitUntil } from '../database/poll-until.ts';
import { oneLine } from '../errors.ts';
import type { ClusterMember } from './cluster.ts';
import { type ClusterManager, hostOf } from './managed-cluster.ts';

interface PatroniMember {
  name: string;
  role: string;
  state: string;
  host: string;
  port: number;
}

const ASK_MS = 5_000;

async function clusterView(api: string): Promise<PatroniMember[]> {
  const answer = await fetch(`${api}/cluster`, { signal: AbortSignal.timeout(ASK_MS) });
  if (!answer.ok) throw new Error(`${api}/cluster answered ${answer.status}`);
  const { members = [] } = (await answer.json()) as { members?: PatroniMember[] };
  return members;
}

export function patroniManager(apis: readonly string[], timeoutMs: number): ClusterManager {
  /** The first API that answers: a member being failed over may not. */
  const view = async (): Promise<PatroniMember[]> => {
    const failures: string[] = [];
    for (const api of apis) {
      try {
        return await clusterView(api);
      } catch (error: unknown) {
        failures.push(oneLine(error));
      }
    }
    throw new Error(`no Patroni API answered: ${failures.join('; ')}`);
  };
  const nameOf = async (member: ClusterMember): Promise<string> => {
    const found = (await view()).find((m) => `${m.host}:${m.port}` === hostOf(member.url));
    if (!found) throw new Error(`Patroni lists no member at ${hostOf(member.url)}`);
    return found.name;
  };
  const post = async (action: 'failover' | 'switchover', body: Record<string, string>): Promise<void> => {
    const failures: string[] = [];
    for (const api of apis) {
      const answer = await fetch(`${api}/${action}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      }).catch((error: unknown) => oneLine(error));
      if (typeof answer !== 'string' && answer.ok) return;
      failures.push(typeof answer === 'string' ? answer : `${answer.status} ${(await answer.text()).trim()}`);
    }
    throw new Error(`Patroni refused the ${action}: ${failures.join('; ')}`);
  };
  const synchronousMode = async (): Promise<boolean> => {
    const answer = await fetch(`${apis[0]}/config`, { signal: AbortSignal.timeout(ASK_MS) });
    return ((await answer.json()) as { synchronous_mode?: boolean }).synchronous_mode === true;
  };
  const leads = (name: string) => async () =>
    (await view()).some((m) => m.name === name && m.role === 'leader' && m.state === 'running');
  return {
    backend: 'patroni',
    faults: ['failover', 'switchover'],
    async describe() {
      for (const api of apis) {
        const answer = await fetch(`${api}/patroni`, { signal: AbortSignal.timeout(ASK_MS) }).catch(
          () => undefined,
        );
        if (!answer?.ok) continue;
        const { patroni } = (await answer.json()) as { patroni?: { version?: string } };
        return `patroni ${patroni?.version ?? 'unknown'}`;
      }
      throw new Error(`no Patroni API answered at ${apis.join(', ')}`);
    },
    async failover(_from, to) {
      const candidate = await nameOf(to);
      await post('failover', { candidate });
      await waitUntil(`Patroni showing ${candidate} as the running leader`, timeoutMs, leads(candidate));
    },
    async switchover(from, to) {
      const [leader, candidate] = [await nameOf(from), await nameOf(to)];
      await post('switchover', { leader, candidate });
      await waitUntil(`Patroni showing ${candidate} as the running leader`, timeoutMs, leads(candidate));
    },
    async healthy(members) {
      const seen = await view();
      const leader = seen.filter((m) => m.role === 'leader' && m.state === 'running');
      const following = seen.filter((m) => m.role !== 'leader' && ['running', 'streaming'].includes(m.state));
      const synchronous = seen.some((m) => m.role === 'sync_standby');
      const whole = leader.length === 1 && following.length === members.length - 1;
      return whole && (synchronous || !(await synchronousMode()));
    },
  };
}
