import { Errors } from '../errors.ts';
import { confirmVsExpire } from './confirm-vs-expire.ts';
import { contention } from './contention.ts';
import { contentionAborts } from './contention-aborts.ts';
import { crashRecovery } from './crash-recovery.ts';
import { disconnect } from './disconnect.ts';
import { duplicateKey } from './duplicate-key.ts';
import { expireReplay } from './expire-replay.ts';
import { expiry } from './expiry.ts';
import { falseSoldOut } from './false-sold-out.ts';
import { http } from './http.ts';
import { keyReuse } from './key-reuse.ts';
import { nodeCrash } from './node-crash.ts';
import { restart } from './restart.ts';
import type { Scenario } from './scenario.ts';
import { userLimit } from './user-limit.ts';
import { userRace } from './user-race.ts';

export const SCENARIOS: readonly Scenario[] = [
  contention,
  duplicateKey,
  userLimit,
  keyReuse,
  falseSoldOut,
  contentionAborts,
  userRace,
  expiry,
  confirmVsExpire,
  crashRecovery,
  expireReplay,
  restart,
  nodeCrash,
  http,
  disconnect,
];

export function findScenario(id: string): Scenario {
  const scenario = SCENARIOS.find((s) => s.id === id);
  if (!scenario) {
    throw Errors.badInput(
      `unknown scenario "${id}"; choose one of: ${SCENARIOS.map((s) => s.id).join(', ')}`,
    );
  }
  return scenario;
}
