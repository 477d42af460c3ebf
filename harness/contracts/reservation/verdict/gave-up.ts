/**
 * GAVE_UP writes nothing (docs/contract.md): a retrying design that ran out of attempts must leave no row
 * and no unit behind. `gaveUpWrote` fires on a key answered GAVE_UP whose final status is anything but
 * NOT_FOUND, where nothing else explains a row: every request sent with the key was answered, and only
 * with answers that write nothing. A unit taken and not given back shows in `drift` and in the
 * sell-what-remains probe; the give-up scenario drives the path on purpose (fixtures/reservation/scenarios/give-up.ts).
 */
import type { RequestResult } from '../driver/client-task.ts';
import type { Problem } from './expectations.ts';
import type { KeyStatus } from './final-read.ts';

/** Answers after which a key must read NOT_FOUND, had no other request with it written. */
const WRITES_NOTHING = new Set<string>(['GAVE_UP', 'SOLD_OUT', 'USER_LIMIT', 'BAD_REQUEST']);

export function gaveUpWrote(
  sent: readonly { requestKey: string }[],
  answers: readonly RequestResult[],
  statuses: ReadonlyMap<string, KeyStatus>,
): Problem[] {
  const sends = new Map<string, number>();
  for (const r of sent) sends.set(r.requestKey, (sends.get(r.requestKey) ?? 0) + 1);
  const byKey = new Map<string, string[]>();
  for (const a of answers) byKey.set(a.requestKey, [...(byKey.get(a.requestKey) ?? []), a.outcome]);
  const wrote = [...byKey]
    .filter(([, outcomes]) => outcomes.includes('GAVE_UP') && outcomes.every((o) => WRITES_NOTHING.has(o)))
    .filter(([key, outcomes]) => outcomes.length >= (sends.get(key) ?? 0))
    .map(([key]) => [key, statuses.get(key) ?? 'NOT_FOUND'] as const)
    .filter(([, status]) => status !== 'NOT_FOUND');
  if (wrote.length === 0) return [];
  const shown = wrote.slice(0, 3).map(([key, status]) => `${key} reads ${status}`);
  return [
    {
      check: 'gaveUpWrote',
      message: `gaveUpWrote ${wrote.length}: ${shown.join(', ')}${wrote.length > 3 ? ', …' : ''} after GAVE_UP`,
    },
  ];
}
