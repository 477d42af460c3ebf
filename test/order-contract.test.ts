/**
 * The order contract as the third registered contract, driven by the one harness: `list` shows its designs
 * and scenarios; the default run (shared with the other files that read it) holds every honest order design
 * in every order scenario and catches each order control in its scenario for the check its `caughtBy`
 * names — the deadlock control with a 40P01 answered as an error, the one-transaction-per-line control with
 * a partial order after a crash, read-then-subtract with the lost update (80 where 70 is right), the
 * expiry that never puts lines back by the sell-what-remains probe alone (its own reads all agree); the same
 * controls judged as if they held fail for that reason; the explorer over carts finds each control and
 * nothing in an honest design; a user's spec file of order steps runs every order design; and a malformed
 * order design is refused in one line.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { ORDER_SCENARIOS } from '../harness/contracts/order/case/order-scenarios.ts';
import { runOrderCase } from '../harness/contracts/order/case/run-order-case.ts';
import { loadOrderDesign, ORDER_DESIGN_IDS } from '../harness/contracts/order/designs/order-registry.ts';
import { useRunDatabase } from './db-fixture.ts';
import { DEFAULT_RUN_TIMEOUT_MS, defaultRun } from './default-run.ts';
import { runCli, runJson } from './run-cli.ts';

const { db } = useRunDatabase();
const SETTINGS = { keepFailed: false, timeoutMs: 20_000, permutations: 'listed' as const };
const HONEST = ['order-sku-order', 'order-serializable', 'order-frozen-ledger'];
/** Each control, the scenario that catches it, and the check its caughtBy names there. */
const CONTROLS = [
  ['order-request-order', 'order-opposite-carts', 'errors'],
  ['order-line-per-transaction', 'order-crash-between-lines', 'allOrNothing'],
  ['order-read-then-subtract', 'order-lost-update', 'drift'],
  ['order-expire-off-the-books', 'order-expiry-release', 'sellsWhatRemains'],
] as const;
/** Controls caught only where no explored program goes (releases, expiries): n/a in the explorer. */
const BEYOND_EXPLORER = new Set<string>(['order-expire-off-the-books']);

const scratch = mkdtempSync(join(tmpdir(), 'order-contract-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the order contract, registered', () => {
  it('list shows every order design and scenario', async () => {
    const run = await runCli(['list', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const { contracts } = JSON.parse(run.stdout) as {
      contracts: { id: string; designs: { id: string; expect: string }[]; scenarios: { id: string }[] }[];
    };
    const order = contracts.find((c) => c.id === 'order');
    expect(contracts.map((c) => c.id)).toEqual(['reservation', 'payment', 'order']);
    expect(order?.designs.map((d) => [d.id, d.expect])).toEqual([
      ...HONEST.map((id) => [id, 'hold']),
      ...CONTROLS.map(([id]) => [id, 'violate']),
    ]);
    expect(order?.scenarios.map((s) => s.id)).toEqual(ORDER_SCENARIOS.map((s) => s.id));
  });

  it(
    'the default run holds every honest order design and catches each control for its named check',
    async () => {
      const { report } = await defaultRun();
      const orders = report.orders.filter((c) => c.scenario !== 'explore');
      expect(orders.filter((c) => c.status === 'fail' || c.status === 'broken')).toEqual([]);
      for (const id of HONEST) {
        const own = orders.filter((c) => c.strategy === id);
        // Every scenario judged, except where the design declares no point the scenario holds at.
        expect(own.filter((c) => c.status === 'pass').length, id).toBe(ORDER_SCENARIOS.length);
      }
      for (const [id, scenario, check] of CONTROLS) {
        const caught = orders.filter((c) => c.strategy === id && c.status === 'pass');
        expect(caught.map((c) => c.scenario)).toEqual([scenario]);
        expect(caught[0]?.fired).toContain(check);
        expect(caught[0]?.boundary).toMatch(new RegExp(`^caught: ${check === 'errors' ? '.*40P01' : check}`));
      }
      const deadlocked = orders.find((c) => c.id === 'order-opposite-carts/order-request-order');
      expect(deadlocked?.outcomes).toEqual({ HELD: 1, ERROR: 1 });
      const lost = orders.find((c) => c.id === 'order-lost-update/order-read-then-subtract');
      expect(lost?.stock?.['sku-1001']).toEqual({ total: 100, remaining: 80, held: 30 });
      // The explorer over carts: every honest design passes its whole scope with no finding; each control
      // is found, for the check its caughtBy names, within programs of two orders.
      const explored = report.orders.filter((c) => c.scenario === 'explore');
      for (const id of HONEST) {
        const c = explored.find((e) => e.strategy === id);
        expect([c?.status, c?.exploration?.spec], id).toEqual(['pass', undefined]);
        expect(c?.exploration?.scope?.completeLength, id).toBe(2);
      }
      for (const [id, , check] of CONTROLS) {
        const c = explored.find((e) => e.strategy === id);
        if (BEYOND_EXPLORER.has(id)) {
          expect([c?.status, c?.boundary], id).toEqual([
            'n/a',
            expect.stringMatching(/out of the explorer's reach/),
          ]);
          continue;
        }
        expect(c?.status, id).toBe('pass');
        expect(c?.fired, id).toContain(check);
        expect(c?.exploration?.spec, id).toBeDefined();
      }
    },
    DEFAULT_RUN_TIMEOUT_MS,
  );

  it.each(CONTROLS)('%s judged as if it held fails in %s for %s', async (id, scenarioId, check) => {
    const ref = await loadOrderDesign(id);
    const scenario = ORDER_SCENARIOS.find((s) => s.id === scenarioId);
    if (!scenario) throw new Error(`no order scenario ${scenarioId}`);
    const result = await runOrderCase(
      db(),
      { ...ref, design: { ...ref.design, expect: 'hold' } },
      scenario,
      SETTINGS,
    );
    expect(result.status).toBe('fail');
    expect(result.fired).toContain(check);
  });

  it("catches a leak the design's own reads hide only by probing what it sells (sellsWhatRemains)", async () => {
    const ref = await loadOrderDesign('order-expire-off-the-books');
    const scenario = ORDER_SCENARIOS.find((s) => s.id === 'order-expiry-release');
    if (!scenario) throw new Error('no order scenario order-expiry-release');
    const result = await runOrderCase(db(), ref, scenario, SETTINGS);
    // Every answer, read and audit agrees with the order model: the probe is the one check that fires.
    expect(result.fired).toEqual(['sellsWhatRemains']);
    expect(result.status).toBe('pass');
    expect(result.stock?.['sku-a']).toEqual({ total: 5, remaining: 4, held: 1 });
    // remaining() says 4 of sku-a; 3 expired units never came back, so only 1 sells.
    expect(result.boundary).toMatch(
      /^caught: sellsWhatRemains: sku-a remaining\(\) 4; an order of 4 was answered SOLD_OUT/,
    );
  });

  it('runs a spec file of order steps against every order design (run --spec)', async () => {
    const spec = join(scratch, 'two-carts.spec');
    writeFileSync(
      spec,
      [
        '# stock sku-a:3,sku-b:3',
        'session s1',
        'step "one" { ORDER k-1 user-1 sku-a:2,sku-b:1 }',
        'session s2',
        'step "two" { ORDER k-2 user-2 sku-b:1,sku-a:2 }',
        'step "see" { LINES k-2 }',
        'permutation "one" "two" "see"',
        '',
      ].join('\n'),
    );
    const { run, report } = await runJson(inject('serverUrl'), ['--spec', spec]);
    expect(run.code, run.stderr).toBe(0);
    expect(report.orders.map((c) => [c.strategy, c.status, c.outcomes])).toEqual(
      ORDER_DESIGN_IDS.map((id) => [id, 'pass', { HELD: 1, SOLD_OUT: 1 }]),
    );
  });

  it('refuses a module that declares the order contract but is no order design, in one line', async () => {
    const module = join(scratch, 'not-an-order-design.ts');
    writeFileSync(module, "export default { contract: 'order', id: 'x', title: 'x' };\n");
    const run = await runCli(['run', '--strategy', module]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/is not a valid order design: .*guarantee is missing/);
  });
});
