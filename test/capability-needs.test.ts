/**
 * A case that needs a capability the server refused is n/a with the server's answer (capability-needs.ts),
 * server-free: what designs, scenarios and isolation levels need, and the reason a refused one gives.
 */
import { describe, expect, it } from 'vitest';
import { benchDesign } from '../harness/bench/bench-design.ts';
import { refuseUnbenchable } from '../harness/bench/benchable.ts';
import { refusedNeed } from '../harness/case/applicability.ts';
import { caseNeeds, scenarioNeeds } from '../harness/contracts/reservation/case/capability-needs.ts';
import { RESERVATION } from '../harness/contracts/reservation/contract.ts';
import type { Capabilities } from '../harness/database/capabilities.ts';
import { EXIT, HarnessError } from '../harness/errors.ts';
import coalesced from '../strategies/coalesced.ts';
import { CAPABILITIES, type Strategy, type StrategyRef } from '../strategies/contract.ts';
import hotRow from '../strategies/hot-row.ts';
import serializable from '../strategies/serializable.ts';
import skipLockedSlots from '../strategies/skip-locked-slots.ts';

const ALL: Capabilities = Object.fromEntries(CAPABILITIES.map((c) => [c, true])) as Capabilities;
const DENIED = 'permission denied for function pg_blocking_pids';

describe('capability needs', () => {
  it('takes a design’s needs from the SQL it relies on', () => {
    expect(skipLockedSlots.needs).toEqual(['skipLocked']);
    expect(serializable.needs).toEqual(['serializable']);
    expect(coalesced.needs).toEqual(['returningOld']);
    expect(hotRow.needs).toBeUndefined();
  });

  it('derives a scenario’s from its kind and session settings', () => {
    expect(scenarioNeeds({ kind: 'interleaving' })).toEqual(['lockView']);
    expect(scenarioNeeds({ kind: 'clients', sessionSettings: { synchronous_commit: 'off' } })).toEqual([
      'synchronousCommit',
    ]);
    expect(scenarioNeeds({ kind: 'clients' })).toEqual([]);
  });

  it('adds the isolation level the case runs at', () => {
    expect(caseNeeds(skipLockedSlots, { kind: 'interleaving' }, 'repeatable-read')).toEqual([
      'skipLocked',
      'lockView',
      'repeatableRead',
    ]);
  });

  it('makes a case n/a with what it needs and what the server answered', () => {
    const capabilities = { ...ALL, lockView: DENIED };
    expect(refusedNeed(caseNeeds(hotRow, { kind: 'interleaving' }, undefined), capabilities)).toBe(
      `needs the lock view (pg_blocking_pids, other sessions' locks in pg_locks), which this server refused: ${DENIED}`,
    );
    expect(refusedNeed(caseNeeds(hotRow, { kind: 'clients' }, undefined), capabilities)).toBeUndefined();
    expect(refusedNeed(['skipLocked'], { ...ALL, skipLocked: 'SKIP LOCKED is not supported' })).toMatch(
      /^needs FOR UPDATE SKIP LOCKED, which this server refused: SKIP LOCKED is not supported$/,
    );
  });

  it('decides nothing where nothing was probed (a black box) or everything was granted', () => {
    expect(refusedNeed(['lockView', 'serializable'], undefined)).toBeUndefined();
    expect(refusedNeed(CAPABILITIES, ALL)).toBeUndefined();
  });

  it('is refused when a plug-in names a capability the suite does not know', async () => {
    const { strategyFromModule } = await import('../harness/registry/strategy-module.ts');
    const bad = { ...hotRow, needs: ['telepathy'] } as unknown as Strategy;
    expect(strategyFromModule({ default: bad })).toMatchObject({ problem: expect.stringMatching(/needs/) });
  });

  it('refuses a bench of a design the server cannot run, in one bad-input line, before any series', () => {
    const refs = (...strategies: Strategy[]): StrategyRef[] =>
      strategies.map((strategy) => ({ strategy }) as StrategyRef);
    const refusal = (strategies: StrategyRef[], db: Parameters<typeof refuseUnbenchable>[1]) => {
      try {
        refuseUnbenchable(
          strategies.map((ref) => benchDesign(RESERVATION, ref)),
          db,
        );
        return undefined;
      } catch (error: unknown) {
        return error instanceof HarnessError ? [error.exitCode, error.message] : error;
      }
    };
    const pg18 = { serverVersionNum: 180_000, capabilities: ALL };
    expect(refusal(refs(hotRow, skipLockedSlots, coalesced), pg18)).toBeUndefined();
    expect(
      refusal(refs(hotRow, skipLockedSlots), { ...pg18, capabilities: { ...ALL, skipLocked: 'not here' } }),
    ).toEqual([
      EXIT.badInput,
      'cannot bench skip-locked-slots on this server: it needs FOR UPDATE SKIP LOCKED, which this server refused: not here',
    ]);
    expect(refusal(refs(coalesced), { ...pg18, serverVersionNum: 170_004 })).toEqual([
      EXIT.badInput,
      expect.stringMatching(/^cannot bench coalesced on this server: it .*18.*RETURNING old/),
    ]);
  });
});
