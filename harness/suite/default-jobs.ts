/**
 * Cases run side by side by default. A case mostly waits — on a barrier, a blocked session, a child process,
 * a WAL flush, an external call — so several share two cores well (with fewer, both cores sat idle for
 * stretches of a default run; with more, cases only queued); a fixed number, never the machine's core count,
 * so that which cases run beside which is the same on every machine (and a case's verdict is the same alone:
 * it is judged on its own tables, sessions and observed state).
 */
export const DEFAULT_JOBS = 6;
