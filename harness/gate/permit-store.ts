/**
 * Where a shared gate keeps its permits: a store every instance reaches (PostgreSQL, Redis), each permit
 * held under a lease that its holder renews while its request runs, so a holder killed with permits gives
 * them back when the lease runs out, with nobody's help.
 */

/** One permit held: the holder id the store knows it by. */
export interface Permit {
  readonly holder: string;
}

export interface PermitStore {
  /** `postgres` or `redis`, and where (never a password), for the `listening on` line. */
  readonly description: string;
  /** One attempt: a permit, or undefined when every permit is taken. Throws when the store is unreachable. */
  tryAcquire(): Promise<Permit | undefined>;
  /** Gives the permit back; throws when the store is unreachable (then its lease gives it back). */
  release(permit: Permit): Promise<void>;
  /** Permits whose lease ran out while still held (a renewal found them gone). */
  leasesLost(): number;
  close(): Promise<void>;
}

let issued = 0;

/** A holder id no other permit of any process has: this process, a random part, a count. */
export function newHolder(): string {
  issued += 1;
  return `${process.pid}-${Math.random().toString(36).slice(2, 10)}-${issued}`;
}
