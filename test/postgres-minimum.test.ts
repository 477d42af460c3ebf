/**
 * A design's minimum PostgreSQL (Strategy.minPostgres), server-free: the rule that makes every case of it
 * n/a on an older server, and its reason, from the server's own server_version_num.
 */
import { describe, expect, it } from 'vitest';
import { belowMinimum, postgresVersionText } from '../harness/database/postgres-minimum.ts';
import coalesced from '../strategies/coalesced.ts';
import type { Strategy } from '../strategies/contract.ts';
import hotRow from '../strategies/hot-row.ts';

describe('Strategy.minPostgres', () => {
  it('makes coalesced n/a below 18, with what it needs and the server it met', () => {
    expect(belowMinimum(coalesced, 150018)).toBe('needs PostgreSQL 18 (RETURNING old); the server is 15.18');
    expect(belowMinimum(coalesced, 170010)).toMatch(/the server is 17\.10$/);
  });

  it('lets it run from its major on, and a design without a minimum on any server', () => {
    expect(belowMinimum(coalesced, 180000)).toBeUndefined();
    expect(belowMinimum(coalesced, 190001)).toBeUndefined();
    expect(belowMinimum(hotRow, 140023)).toBeUndefined();
  });

  it('decides nothing where no server is known (a black box)', () => {
    expect(belowMinimum(coalesced, undefined)).toBeUndefined();
  });

  it('prints server_version_num as the server prints its version', () => {
    expect(postgresVersionText(180004)).toBe('18.4');
    expect(postgresVersionText(140023)).toBe('14.23');
  });

  it('is refused when a plug-in declares it badly', async () => {
    const { strategyFromModule } = await import('../harness/registry/strategy-module.ts');
    const bad: Strategy = { ...hotRow, minPostgres: { major: 18, needs: '' } };
    expect(strategyFromModule({ default: bad })).toMatchObject({
      problem: expect.stringMatching(/minPostgres/),
    });
  });
});
