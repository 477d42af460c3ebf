/**
 * Thrown from a pause point to make the operation's transaction roll back there — a holder that aborts at
 * `before-commit`. Strategies need not know it: their transaction wrapper rolls back on any error.
 */
export class RollbackAtPause extends Error {
  constructor(readonly point: string) {
    super(`rolled back at ${point}`);
    this.name = 'RollbackAtPause';
  }
}
