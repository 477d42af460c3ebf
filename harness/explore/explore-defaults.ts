/**
 * The explorer's defaults. The default run's budget is counted in programs, not seconds, so it explores the
 * same programs on every machine, and is chosen so that `npm start` stays short on a 2-core machine (the
 * README says how long it takes) while every built-in negative control is found within it.
 */
export const EXPLORE_DEFAULTS = {
  /** The seed of `npm start`'s exploration, and of `explore` without --seed. */
  seed: 2026,
  /** Programs `explore` tries without --budget. */
  programs: 200,
  /** Random programs the default run tries per design after the sweep (`run --explore-budget N`). */
  perDesignInRun: 12,
  /** Runs spent shrinking a finding, at most: by `explore`, and by the default run (whose gate is the find). */
  shrinkRuns: 60,
  shrinkRunsInRun: 20,
  /** Replays of a finding's spec from its file in `explore`, and in the default run. */
  replays: 10,
  replaysInRun: 2,
  /** Programs of the exhaustive scope the default run and `explore` run per design, shortest first. */
  scopeInRun: 1_600,
  /** The length every program of which `scopeInRun` covers, for every design (test/explore-scope.test.ts). */
  scopeLengthInRun: 2,
  /** A program's steps wait at most this long (WAIT steps take at most 500 ms). */
  timeoutMs: 10_000,
} as const;

/** The longest programs the exhaustive scope enumerates; a budget past every one of them is not spent. */
export const SCOPE_MAX_LENGTH = 3;
/** Most programs of the exhaustive scope run side by side in one batch. */
export const SCOPE_BATCH_SIZE = 400;
/**
 * Most programs of the exhaustive scope's first batch; each later batch takes at most as many as ran
 * before it (exhaustive.ts), up to SCOPE_BATCH_SIZE.
 */
export const SCOPE_FIRST_BATCH_SIZE = 16;
/** Most sweep programs run one after another in one batch (all of a design's, today; they do not grow). */
export const SWEEP_BATCH_SIZE = 64;
