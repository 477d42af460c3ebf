/**
 * Issue 24, the explorer as part of the verdict. The default run explores every design with its fixed
 * seed and budget: each built-in negative control is found and its spec fails again on every replay
 * (those out of its reach, async-commit, standby-stock-check and — without --cluster — local-commit, are n/a with the reason read from their
 * caughtBy), each safe design is explored clean. A design whose only bug lies on a path no scenario drives (request keys that differ only
 * in letter case) is found by `linearizable` alone — no count check fires — and the spec the explorer
 * wrote fails it the same way from the file, while hot-row passes the same spec. Three such fixtures (key
 * case, a TTL right only for whole minutes, a remaining() that hides a leak) fail the default run's
 * exploration, and so does each of seven whose bug lies outside the alphabet the explorer had before its
 * exhaustive scope (issue 37: keys cut to 64 characters, trimmed, normalized; a sku found with LIKE; a
 * sku of no stock dropped; a TTL in whole seconds; an expire that moves 100 holds and answers all).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { BUILT_IN_IDS } from '../harness/contracts/reservation/designs/registry.ts';
import { EXPLORE_DEFAULTS } from '../harness/explore/explore-defaults.ts';
import { DEFAULT_RUN_TIMEOUT_MS, exploredInDefaultRun } from './default-run.ts';
import { caseSchemasIn, dropKeptDatabases, keptDatabasesOf } from './kept-databases.ts';
import { runCli, runJson } from './run-cli.ts';

const serverUrl = inject('serverUrl');
const reports = mkdtempSync(join(tmpdir(), 'reservebench-explore-'));
afterAll(() => rmSync(reports, { recursive: true, force: true }));

/** The controls whose bug no explored program can reach, each with the reason its case must give. */
const OUT_OF_REACH: Record<string, RegExp> = {
  'async-commit': /out of the explorer's reach: .*database server crashes \(db-crash\)/,
  'standby-stock-check': /out of the explorer's reach: .*only on a cluster \(standby-reads\)/,
  'local-commit': /out of the explorer's reach: .*only on a cluster \(failover-sync\)/,
  'give-up-releases-claim': /out of the explorer's reach: .*no explored program can be \(give-up: /,
};

describe('the default run explores every design', () => {
  it(
    'finds every negative control within its budget, and nothing in a safe design',
    async () => {
      const { report } = await exploredInDefaultRun();
      expect(report.cases.map((c) => c.strategy).sort()).toEqual([...BUILT_IN_IDS].sort());
      for (const c of report.cases) {
        const outOfReach = OUT_OF_REACH[c.strategy];
        if (outOfReach) {
          expect(c.status, c.id).toBe('n/a');
          expect(c.boundary, c.id).toMatch(outOfReach);
          continue;
        }
        expect(c.status, `${c.id}: ${c.boundary}`).toBe('pass');
        const e = 'exploration' in c ? c.exploration : undefined;
        if (c.expect === 'hold') {
          expect(e?.swept, c.id).toBeGreaterThan(0);
          expect(e?.programs, c.id).toBe((e?.swept ?? 0) + EXPLORE_DEFAULTS.perDesignInRun);
          expect(e?.scope?.completeLength, c.id).toBeGreaterThanOrEqual(EXPLORE_DEFAULTS.scopeLengthInRun);
          expect(e?.scope?.broken, c.id).toBe(0);
          expect(e?.spec, c.id).toBeUndefined();
        } else {
          expect(e?.programs, c.id).toBeLessThanOrEqual((e?.swept ?? 0) + EXPLORE_DEFAULTS.perDesignInRun);
          const replays = EXPLORE_DEFAULTS.replaysInRun;
          expect(e?.reproduced, c.id).toEqual({ failed: replays, of: replays });
        }
      }
    },
    DEFAULT_RUN_TIMEOUT_MS,
  );
});

describe('a bug on a path no scenario drives: keys that differ only in case', () => {
  const fixture = 'test/fixtures/unnamed/key-case-folded.ts';

  it('is found by linearizable alone, and its spec fails it again while hot-row passes', async () => {
    const explored = await runCli(
      ['explore', '--strategy', fixture, '--replays', '3', '--reports', reports],
      { DATABASE_URL: serverUrl },
    );
    // The case line wraps at the terminal's width: read it as one line.
    const line = explored.stdout.replace(/\s+/g, ' ');
    expect(line).toMatch(
      /explorer found \(the exhaustive scope \(batch ending at program \d+\); .*seed 2026\): linearizable —/,
    );
    expect(line).toMatch(/failed 3 of 3 replays/);
    expect(explored.code).toBe(1);
    const spec = join(reports, 'explore', 'key-case-folded-seed2026.spec');
    expect(existsSync(spec)).toBe(true);

    const { run, report } = await runJson(serverUrl, ['--strategy', `hot-row,${fixture}`, '--spec', spec]);
    const folded = report.cases.find((c) => c.strategy === 'key-case-folded');
    expect(folded?.status).toBe('fail');
    expect(folded && 'fired' in folded ? folded.fired : []).toEqual(['linearizable']);
    expect(report.cases.find((c) => c.strategy === 'hot-row')?.status).toBe('pass');
    expect(run.code).toBe(1);
  }, 180_000);
});

/**
 * Fixtures whose one bug lies on a path no scenario drives (test/fixtures/unnamed/), or one step outside
 * the alphabet the explorer had before its exhaustive scope (test/fixtures/scope/, issue 37); the honest
 * built-ins pass the same exploration (the default run, above).
 */
const UNNAMED = ['key-case-folded', 'ttl-in-whole-minutes', 'remaining-hides-leak'];
const OUTSIDE_THE_OLD_ALPHABET = [
  'key-truncated',
  'key-trimmed',
  'key-normalized',
  'sku-like',
  'stock-zero-skipped',
  'ttl-whole-seconds',
  'expire-in-batches',
];

describe('fixtures whose only bug lies on a path no scenario drives, or outside the old alphabet', () => {
  it("fail the default run's exploration, found by its sweep or scope and replayed failing", async () => {
    const modules = [
      ...UNNAMED.map((id) => `test/fixtures/unnamed/${id}.ts`),
      ...OUTSIDE_THE_OLD_ALPHABET.map((id) => `test/fixtures/scope/${id}.ts`),
    ];
    const budget = String(EXPLORE_DEFAULTS.scopeInRun);
    const args = ['--strategy', modules.join(','), '--scenario', 'explore', '--explore-budget', budget];
    const { run, report } = await runJson(serverUrl, args);
    const ids = [...UNNAMED, ...OUTSIDE_THE_OLD_ALPHABET];
    expect(report.cases.map((c) => c.id)).toEqual(ids.map((id) => `explore/${id}`));
    for (const c of report.cases) {
      expect(c.status, c.id).toBe('fail');
      // Found by what the run explores in full (the sweep, which runs first, or the scope), never by luck.
      expect(c.boundary, c.id).toMatch(/^explorer found \(the (sweep|exhaustive scope) .*seed 2026\): /);
      const e = 'exploration' in c ? c.exploration : undefined;
      expect(e?.reproduced, c.id).toEqual({ failed: 2, of: 2 });
    }
    expect(run.code).toBe(1);
    // Kept: each finding's tables, and nothing of the batches halved away or the replays.
    const kept = keptDatabasesOf(run.stderr);
    try {
      const findings = report.cases.map((c) => ('keptSchema' in c ? c.keptSchema : undefined));
      expect(await caseSchemasIn(serverUrl, kept)).toEqual(findings.sort());
    } finally {
      await dropKeptDatabases(serverUrl, kept);
    }
  }, 600_000);
});

describe('a disable that does not wait for a booking in flight', () => {
  it('is found by the explorer sweep as heldAfterDisable alone, with no scenario named', async () => {
    const fixture = 'test/fixtures/checks/disable-without-wait.ts';
    const args = ['--strategy', fixture, '--scenario', 'explore', '--explore-budget', '1'];
    const { run, report } = await runJson(serverUrl, args);
    const c = report.cases.find((x) => x.id === 'explore/disable-without-wait');
    expect(c?.status).toBe('fail');
    expect(c && 'fired' in c ? c.fired : []).toEqual(['heldAfterDisable']);
    const e = c && 'exploration' in c ? c.exploration : undefined;
    expect(e?.reproduced).toEqual({ failed: 2, of: 2 });
    expect(run.code).toBe(1);
  }, 180_000);
});
