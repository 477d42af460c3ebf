/**
 * Set on Ctrl-C, SIGTERM or SIGHUP: from then on the exit hooks (stop the server, drop the run database)
 * own the exit, and whatever fails because the run is being torn down is not reported as a result.
 */
let interrupted = false;
/** What the exit hooks do on the way out, said when a signal comes; a command that keeps says so. */
let teardown = 'stopping the server and dropping the run database';

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    // Said at once, whichever ends first: the exit hooks' teardown or the run failing under it.
    if (!interrupted) process.stderr.write(`reservebench: interrupted; ${teardown}\n`);
    interrupted = true;
  });
}

export function wasInterrupted(): boolean {
  return interrupted;
}

/** Names what an interrupt of this command does, for the line a signal prints. */
export function sayOnInterrupt(what: string): void {
  teardown = what;
}
