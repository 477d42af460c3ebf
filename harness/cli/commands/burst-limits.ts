/**
 * The bounds and defaults of `bench --burst`'s options, apart from the burst's run (bench-burst.ts): the
 * declarations read them on every start, the run's modules load only when a burst runs.
 */

/** The must-show: 10,000 requests in one instant. */
export const MAX_BURST = 10_000;
/** The flash-sale lab's scale: 40 units. */
export const DEFAULT_BURST_STOCK = 40;
export const MAX_BURST_PROCESSES = 16;
export const MAX_RETRIES = 1_000;

/** Why the options of the closed loop and the open model are refused with --burst. */
export const NOT_WITH_BURST = 'a burst is one instant, not a window';
