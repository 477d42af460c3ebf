/**
 * The harness's clock, in ms: `performance.timeOrigin + performance.now()`. Monotonic within a thread
 * and absolute (an epoch time), so times taken on different worker threads of one run compare, which
 * `performance.now()` alone (relative to each thread's own origin) does not.
 */
export const harnessNow = (): number => performance.timeOrigin + performance.now();
