/**
 * What the explorer cannot find: its programs drive the contract's operations, kill sessions and restart
 * nodes, but never crash the database server and never run on a cluster. A negative control whose every
 * catching scenario crashes the server (async-commit: acknowledged commits lost from the WAL) or runs on a
 * cluster (standby-stock-check: a standby read behind) is out of its reach, and so is one caught only where
 * a scenario changes what a program cannot (`beyondExplorer`: give-up runs the design with its retry bound
 * at its least); its explore case is n/a with that reason, read from the control's own `caughtBy`, never
 * from its id.
 */
import type { Strategy } from '../../../../strategies/contract.ts';
import type { Scenario } from '../case/scenario.ts';

export function outOfReach(strategy: Strategy, scenarios: readonly Scenario[]): string | undefined {
  if (strategy.expect !== 'violate' || !strategy.caughtBy) return undefined;
  const catching = Object.keys(strategy.caughtBy).map((id) => ({
    id,
    scenario: scenarios.find((s) => s.id === id),
  }));
  const crashing = catching.filter((c) => c.scenario?.crashesDatabase).map((c) => c.id);
  const clustered = catching.filter((c) => c.scenario?.cluster).map((c) => c.id);
  if (catching.length > 0 && clustered.length === catching.length)
    return `out of the explorer's reach: the bug shows only on a cluster (${clustered.join(', ')}), which no explored program runs on`;
  if (catching.length > 0 && crashing.length === catching.length)
    return `out of the explorer's reach: the bug shows only when the database server crashes (${crashing.join(', ')}), which no explored program does`;
  const reasons = catching.map(({ id, scenario }) => {
    const why = scenario?.crashesDatabase ? 'the database server crashes' : scenario?.beyondExplorer;
    return why ? `${id}: ${why}` : undefined;
  });
  if (catching.length === 0 || reasons.some((r) => r === undefined)) return undefined;
  return `out of the explorer's reach: the bug shows only in scenarios no explored program can be (${reasons.join('; ')})`;
}
