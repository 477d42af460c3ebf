/**
 * Whether a case of any contract applies at all, for the reasons every contract shares: a design sits a
 * scenario out by its own choice (a control outside the scenarios that catch it, a design taking part in
 * only some), the server refused a capability the case needs, or the scenario crashes a server the run
 * cannot restart. Each makes the case n/a, with the reason; a contract adds its own (pause points, optional
 * operations).
 */
import type { Capability } from '../../strategies/contract.ts';
import { CAPABILITY_TEXT, type Capabilities } from '../database/capabilities.ts';

/** What the applicability reads of a design: its claim, and which scenarios it takes part in. */
export interface ChoosingDesign {
  id: string;
  expect: 'hold' | 'violate';
  caughtBy?: Readonly<Record<string, readonly string[]>>;
  /** A safe design taking part in only these scenarios. */
  scenarios?: readonly string[];
  /** Why it sits the others out, in its own words. */
  notApplicable?: string;
}

/** Why a design sits a scenario out by its own choice, or undefined when it takes part. */
export function sitsOutByChoice(
  design: ChoosingDesign,
  scenario: { id: string; everyDesignHolds?: true },
): string | undefined {
  if (scenario.everyDesignHolds) return undefined;
  if (design.expect === 'violate') {
    if (design.caughtBy?.[scenario.id]) return undefined;
    const catching = Object.keys(design.caughtBy ?? {}).join(', ');
    return design.notApplicable ?? `negative control: caught in ${catching}`;
  }
  if (!design.scenarios || design.scenarios.includes(scenario.id)) return undefined;
  return design.notApplicable ?? `${design.id} takes part only in: ${design.scenarios.join(', ')}`;
}

/** Why a scenario that crashes the database is n/a on a server given by URL. */
export const NO_RESTART =
  'the scenario crashes and restarts the database: the run has no way to restart a server given by URL';

/** Why the case cannot run on this server, or undefined when it can (or nothing was probed: a black box). */
export function refusedNeed(
  needs: readonly Capability[],
  capabilities: Capabilities | undefined,
): string | undefined {
  if (!capabilities) return undefined;
  const refused = needs.find((need) => capabilities[need] !== true);
  if (!refused) return undefined;
  return `needs ${CAPABILITY_TEXT[refused]}, which this server refused: ${capabilities[refused]}`;
}
