// async-exit-hook ships no types: the one call the harness makes.
declare module 'async-exit-hook' {
  /** Runs `hook` on SIGINT/SIGTERM/SIGHUP (with `done` to call when finished) and synchronously at exit. */
  export default function exitHook(hook: (done?: () => void) => void): void;
}
