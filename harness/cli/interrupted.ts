/**
 * Set on Ctrl-C, SIGTERM or SIGHUP: from then on the exit hooks (stop the server, drop the run database)
 * own the exit, and whatever fails because the run is being torn down is not reported as a result.
 */
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    // Said at once, whichever ends first: the exit hooks' teardown or the run failing under it.
    if (!interrupted)
      process.stderr.write('reservebench: interrupted; stopping the server and dropping the run database\n');
    interrupted = true;
  });
}

export function wasInterrupted(): boolean {
  return interrupted;
}
