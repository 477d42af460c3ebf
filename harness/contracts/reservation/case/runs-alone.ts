/**
 * Which scenarios' cases run with no other case beside them (`run --jobs`): those that reach the whole
 * server rather than their own database, so a case beside them would see, or suffer, what they do.
 */
import type { Scenario } from './scenario.ts';

/** Why a scenario's cases run alone, from what it declares; undefined when they may share the server. */
export function runsAloneBecause(scenario: Scenario): string | undefined {
  if (scenario.crashesDatabase) return 'it crashes and restarts the server every case shares';
  if (scenario.access?.includes('server-settings')) return "it changes the server's settings (ALTER SYSTEM)";
  return scenario.runsAlone;
}
