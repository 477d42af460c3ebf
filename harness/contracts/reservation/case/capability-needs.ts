/**
 * What a case relies on that a server can refuse (harness/database/capabilities.ts), checked against what
 * the run's server let it do on connect: a design's own `needs`, what the scenario's kind and settings
 * need, and the isolation level the case runs at. The first refused one makes the case n/a with the
 * server's answer, as `minPostgres` does for a server too old (database/postgres-minimum.ts).
 */
import type { Capability, IsolationLevel, Strategy } from '../../../../strategies/contract.ts';
import type { Scenario } from './scenario.ts';

const ISOLATION_CAPABILITY: Record<IsolationLevel, Capability> = {
  'read-committed': 'readCommitted',
  'repeatable-read': 'repeatableRead',
  serializable: 'serializable',
};

/**
 * A scenario's needs: an interleaving judges who waits for whom by the lock view; a scenario with
 * `sessionSettings` sets `synchronous_commit` on every session.
 */
export function scenarioNeeds(scenario: Pick<Scenario, 'kind' | 'sessionSettings'>): Capability[] {
  return [
    ...(scenario.kind === 'interleaving' ? (['lockView'] as const) : []),
    ...(scenario.sessionSettings?.synchronous_commit ? (['synchronousCommit'] as const) : []),
  ];
}

/** Everything a case needs: the design's, the scenario's, and its isolation level's. */
export function caseNeeds(
  strategy: Pick<Strategy, 'needs'>,
  scenario: Pick<Scenario, 'kind' | 'sessionSettings'> | undefined,
  isolation: IsolationLevel | undefined,
): Capability[] {
  return [
    ...(strategy.needs ?? []),
    ...(scenario ? scenarioNeeds(scenario) : []),
    ...(isolation ? [ISOLATION_CAPABILITY[isolation]] : []),
  ];
}
