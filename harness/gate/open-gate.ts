/** The gate a service lane gets for a GateChoice: its own local gate, or a shared one on its store. */
import type { AdmissionSettings } from './admission.ts';
import type { Gate, GateChoice } from './gate.ts';
import { LocalGate } from './local-gate.ts';
import { PostgresPermits } from './postgres-permits.ts';
import { RedisPermits } from './redis-permits.ts';
import { StoreGate } from './store-gate.ts';

export interface GatePlace {
  /** The service's database: a `postgres` gate keeps its permits there. */
  connectionString: string;
  /** The gate's name: every instance that gives the same name shares its permits. */
  name: string;
}

export async function openGate(
  choice: GateChoice,
  settings: AdmissionSettings,
  at: GatePlace,
): Promise<Gate> {
  const { limit } = settings;
  if (choice.kind === 'local') return new LocalGate(settings);
  if (choice.kind === 'postgres') {
    const store = await PostgresPermits.open(at.connectionString, at.name, limit, choice.leaseMs);
    return new StoreGate('postgres', settings, choice.failureMode, store);
  }
  if (!choice.redisUrl) throw new Error('a redis gate needs a Redis URL');
  const store = await RedisPermits.open(choice.redisUrl, at.name, limit, choice.leaseMs);
  return new StoreGate('redis', settings, choice.failureMode, store);
}

/** `local`, or the shared gate's store, failure mode and lease, for the `listening on` line. */
export function gateLine(gate: Gate): string {
  if (!(gate instanceof StoreGate)) return 'local (one per process)';
  return `shared: ${gate.description}, fails ${gate.failureMode}`;
}
