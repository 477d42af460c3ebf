/**
 * The result of a case that was not judged, for any contract: n/a (the case does not apply to the design,
 * or cannot run here) or broken (it failed at a stage). Either counts no outcomes and says why in its line.
 */

/** A case that does not apply: its reason, as its line and as `reason`. */
export function naCase<I extends object>(identity: I, reason: string) {
  return { ...identity, status: 'n/a' as const, outcomes: {}, boundary: `n/a: ${reason}`, reason };
}

/** A case broken at a stage: its one line, and its tables if they were kept for inspection. */
export function brokenCase<I extends object>(identity: I, problem: string, keptSchema?: string) {
  return {
    ...identity,
    status: 'broken' as const,
    outcomes: {},
    boundary: problem,
    problems: [problem],
    ...(keptSchema ? { keptSchema } : {}),
  };
}
