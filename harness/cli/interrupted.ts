/**
 * Set on Ctrl-C, SIGTERM or SIGHUP: from then on the exit hooks (stop the server, drop the run database)
 * own the exit, and whatever fails because the run is being torn down is not reported as a result.
 */
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    interrupted = true;
  });
}

export function wasInterrupted(): boolean {
  return interrupted;
}
