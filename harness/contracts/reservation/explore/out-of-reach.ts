/**
 * What the explorer cannot find: its programs drive the contract's operations, kill sessions and restart
 * nodes, but never crash the database server, and run on a cluster only to fail it over (`explore
 * --cluster embedded`: failover-programs.ts), so a control caught only by a synchronous failover is in
 * reach there and out of it without a cluster. A negative control whose every
 * catching scenario crashes the server (async-commit: acknowledged commits lost from the WAL) or runs on a
 * cluster (standby-stock-check: a standby read behind) is out of its reach, and so is one caught only where
 * a scenario changes what a program cannot (`beyondExplorer`: give-up runs the design with its retry bound
 * at its least); its explore case is n/a with that reason, read from the control's own `caughtBy`, never
 * from its id.
 */
import type { Strategy } from '../../../../strategies/contract.ts';
import type { Scenario } from '../case/scenario.ts';

/** A cluster scenario whose fault the explorer's failover programs cause: a synchronous failover. */
function failsOver(scenario: Scenario | undefined): boolean {
  const needs = scenario?.cluster;
  return needs?.replication === 'sync' && needs.faults.every((f) => f === 'failover' || f === 'partition');
}

/** `failover`: the exploration fails programs over on a synchronous cluster (`explore --cluster embedded`). */
export function outOfReach(
  strategy: Strategy,
  scenarios: readonly Scenario[],
  failover = false,
): string | undefined {
  if (strategy.expect !== 'violate' || !strategy.caughtBy) return undefined;
  const catching = Object.keys(strategy.caughtBy).map((id) => ({
    id,
    scenario: scenarios.find((s) => s.id === id),
  }));
  if (failover && catching.some((c) => failsOver(c.scenario))) return undefined;
  const crashing = catching.filter((c) => c.scenario?.crashesDatabase).map((c) => c.id);
  const clustered = catching.filter((c) => c.scenario?.cluster).map((c) => c.id);
  const reachable = catching.some((c) => failsOver(c.scenario))
    ? 'which no explored program runs on without --cluster (explore --cluster embedded fails programs over)'
    : 'which no explored program runs on';
  if (catching.length > 0 && clustered.length === catching.length)
    return `out of the explorer's reach: the bug shows only on a cluster (${clustered.join(', ')}), ${failover ? 'in a fault no explored program causes (they only fail over)' : reachable}`;
  if (catching.length > 0 && crashing.length === catching.length)
    return `out of the explorer's reach: the bug shows only when the database server crashes (${crashing.join(', ')}), which no explored program does`;
  const reasons = catching.map(({ id, scenario }) => {
    const why = scenario?.crashesDatabase ? 'the database server crashes' : scenario?.beyondExplorer;
    return why ? `${id}: ${why}` : undefined;
  });
  if (catching.length === 0 || reasons.some((r) => r === undefined)) return undefined;
  return `out of the explorer's reach: the bug shows only in scenarios no explored program can be (${reasons.join('; ')})`;
}
