/**
 * The state of the sequential contract model (model.ts): per request key its reservation, per sku whether
 * it is disabled, and the counts the transitions read (active units per sku, active keys per user and sku),
 * kept up to date as keys change. A 64-bit fingerprint of the whole state is kept incrementally (Zobrist
 * style: each component's hash XORed in and out), so the checker can tell states apart without comparing
 * them element by element.
 */
import type { ReservationStatus } from '../../../../strategies/contract.ts';
import type { ClockBounds } from '../../../history/clock-bounds.ts';

export interface KeyRecord {
  user: string;
  sku: string;
  status: ReservationStatus;
  /** `past`: the backdate hook moved it before any later clock. */
  expires: ClockBounds | 'past';
  /** The history operation that created it (two reserves of one key by different users differ). */
  origin: number;
}

export type Change =
  | { kind: 'key'; key: string; record: KeyRecord | undefined }
  | { kind: 'disabled'; sku: string; value: boolean };

const isActive = (status: ReservationStatus) => status === 'HELD' || status === 'CONFIRMED';

/** FNV-1a over the text, with two different offsets for two independent 32-bit halves. */
function hashes(text: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return [a >>> 0, b >>> 0];
}

function keyComponent(key: string, r: KeyRecord): string {
  const expires = r.expires === 'past' ? 'past' : String(r.origin);
  return `k\u0000${key}\u0000${r.user}\u0000${r.sku}\u0000${r.status}\u0000${expires}`;
}

export class ContractState {
  private readonly keys = new Map<string, KeyRecord>();
  private readonly activeBySku = new Map<string, number>();
  private readonly activeByUser = new Map<string, number>();
  private readonly disabledSkus = new Set<string>();
  private low = 0;
  private high = 0;

  constructor(readonly totals: ReadonlyMap<string, number>) {}

  record(key: string): KeyRecord | undefined {
    return this.keys.get(key);
  }

  /** Units of `sku` still to sell: its total less its active (HELD or CONFIRMED) reservations. */
  free(sku: string): number {
    return (this.totals.get(sku) ?? 0) - (this.activeBySku.get(sku) ?? 0);
  }

  hasActive(user: string, sku: string): boolean {
    return (this.activeByUser.get(`${user}\u0000${sku}`) ?? 0) > 0;
  }

  isDisabled(sku: string): boolean {
    return this.disabledSkus.has(sku);
  }

  /** Keys whose reservation is HELD, for expiry. */
  *held(): Iterable<[string, KeyRecord]> {
    for (const entry of this.keys) if (entry[1].status === 'HELD') yield entry;
  }

  /** Applies the changes; returns the changes that undo them, in the order to apply. */
  apply(changes: readonly Change[]): Change[] {
    const undo: Change[] = [];
    for (const change of changes) {
      if (change.kind === 'key') {
        undo.push({ kind: 'key', key: change.key, record: this.keys.get(change.key) });
        this.setKey(change.key, change.record);
      } else {
        undo.push({ kind: 'disabled', sku: change.sku, value: this.disabledSkus.has(change.sku) });
        this.setDisabled(change.sku, change.value);
      }
    }
    return undo.reverse();
  }

  /** The state's fingerprint: equal states have equal fingerprints. */
  fingerprint(): string {
    return `${this.low.toString(36)}.${this.high.toString(36)}`;
  }

  private toggle(component: string): void {
    const [a, b] = hashes(component);
    this.low = (this.low ^ a) >>> 0;
    this.high = (this.high ^ b) >>> 0;
  }

  private count(map: Map<string, number>, name: string, by: number): void {
    map.set(name, (map.get(name) ?? 0) + by);
  }

  private setKey(key: string, next: KeyRecord | undefined): void {
    const before = this.keys.get(key);
    if (before) {
      this.toggle(keyComponent(key, before));
      if (isActive(before.status)) {
        this.count(this.activeBySku, before.sku, -1);
        this.count(this.activeByUser, `${before.user}\u0000${before.sku}`, -1);
      }
    }
    if (!next) {
      this.keys.delete(key);
      return;
    }
    this.keys.set(key, next);
    this.toggle(keyComponent(key, next));
    if (isActive(next.status)) {
      this.count(this.activeBySku, next.sku, 1);
      this.count(this.activeByUser, `${next.user}\u0000${next.sku}`, 1);
    }
  }

  private setDisabled(sku: string, value: boolean): void {
    if (this.disabledSkus.has(sku) === value) return;
    this.toggle(`d\u0000${sku}`);
    if (value) this.disabledSkus.add(sku);
    else this.disabledSkus.delete(sku);
  }
}
