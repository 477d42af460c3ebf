import { SCENARIO_INPUTS } from '../../fixtures/scenario-inputs.ts';
import { exactly, requestOn, type Scenario } from './scenario.ts';

/**
 * Seed C28-12: one user, two keys, two sessions; each runs to `after-read` before either goes on. A
 * design that checks "has this user an active hold?" in the application lets both through (2 active
 * holds); with the partial unique index the second insert waits for the first and answers USER_LIMIT.
 */
export const userRace: Scenario = {
  id: 'user-race',
  kind: 'interleaving',
  summary: 'one user, two keys: both sessions read before either writes (seed C28-12)',
  input: SCENARIO_INPUTS['user-race'],
  requires: [{ operation: 'reserve', anyOf: ['after-read'] }],
  // The key is claimed before after-read, so s2's insert waits on s1's uncommitted entry in the user index;
  // memory-quota reads first and inserts after the pause, when s1 has committed.
  blocking: { 'hot-row': ['s2-read'], 'skip-locked-slots': ['s2-read'], 'memory-quota': [] },
  permutation: (params) => ({
    sessions: ['s1', 's2'],
    steps: [
      {
        name: 's1-read',
        session: 's1',
        reserve: requestOn(params, 'req-race-a', params.user),
        until: 'after-read',
      },
      {
        name: 's2-read',
        session: 's2',
        reserve: requestOn(params, 'req-race-b', params.user),
        until: 'after-read',
      },
      { name: 's1-write', session: 's1', resume: 'commit' },
      { name: 's2-write', session: 's2', resume: 'commit' },
    ],
  }),
  check: (_params, outcomes) => exactly({ HELD: 1, USER_LIMIT: 1 }, outcomes),
};
