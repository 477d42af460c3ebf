/**
 * Isolation-tester specs: the grammar (with its one extension, strategy steps), the generator of all
 * permutations, the tester's output format, and the `spec` command against the real server. Expected
 * outputs are compared whole: they hold only what PostgreSQL itself makes deterministic (the deadlock
 * victim is fixed by deadlock_timeout), never a PID or a timing.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadPaymentDesign } from '../harness/contracts/payment/designs/payment-registry.ts';
import { PAYMENT_VERBS } from '../harness/contracts/payment/spec/payment-verbs.ts';
import { loadStrategy } from '../harness/contracts/reservation/designs/registry.ts';
import { RESERVATION_VERBS } from '../harness/contracts/reservation/spec/reservation-verbs.ts';
import { allPermutations, interleavings } from '../harness/interleaving/all-permutations.ts';
import { runPermutation } from '../harness/interleaving/engine.ts';
import type { Step } from '../harness/interleaving/permutation.ts';
import { formatTable } from '../harness/interleaving/spec-output.ts';
import { parseSpec } from '../harness/interleaving/spec-parser.ts';
import { permutationsOf, runSpec } from '../harness/interleaving/spec-run.ts';
import { unifiedDiff } from '../harness/interleaving/text-diff.ts';
import { requestFingerprint } from '../strategies/payment/fingerprint.ts';
import { useRunDatabase } from './db-fixture.ts';
import { runCli } from './run-cli.ts';

/** Both contracts' verbs, as `run --spec` parses a spec. */
const VERBS = [RESERVATION_VERBS, PAYMENT_VERBS];

/** What every step of a reservation verb carries: its contract, its verb, the node it runs on. */
const reservation = (verb: string, node?: { node: number; of: number }) => ({
  contract: 'reservation',
  verb,
  ...(node ? { node } : {}),
});

const serverUrl = inject('serverUrl');
const { db, admin } = useRunDatabase();

const SPECS = ['nowait', 'skip-locked', 'deadlock', 'lost-update', 'serialization-failure'];
const specPath = (name: string) => `fixtures/reservation/specs/${name}.spec`;
const expectedPath = (name: string) => `fixtures/reservation/specs/expected/${name}.out`;

function parseError(source: string): string {
  try {
    parseSpec(source, 'x.spec', VERBS);
  } catch (error: unknown) {
    return error instanceof Error ? error.message : String(error);
  }
  throw new Error('parsed without an error');
}

describe('spec grammar', () => {
  it('reads setups, teardown, sessions with their own setup and teardown, quoted names and comments', () => {
    const spec = parseSpec(
      [
        '# a comment',
        'setup { CREATE TABLE a (i int); }',
        'setup',
        '{',
        '\tINSERT INTO a VALUES (1);   ',
        '}',
        'teardown { DROP TABLE a; }',
        'session "first ""one"""',
        'setup\t{ BEGIN; }',
        'step s1a\t{ SELECT 1; }  # trailing comment',
        'step "s1-b" { SELECT 2; }',
        'teardown { COMMIT; }',
        'session s2',
        'step s2a { SELECT #not a comment in SQL',
        '  3; }',
      ].join('\n'),
      'x.spec',
      VERBS,
    );
    // Spaces and tabs are trimmed at the block's ends, newlines kept, as the tester prints them.
    expect(spec.setup).toEqual(['CREATE TABLE a (i int);', '\n\tINSERT INTO a VALUES (1);   \n']);
    expect(spec.teardown).toBe('DROP TABLE a;');
    expect(spec.sessions.map((s) => s.name)).toEqual(['first "one"', 's2']);
    expect(spec.sessions[0]).toMatchObject({ setup: 'BEGIN;', teardown: 'COMMIT;' });
    expect(spec.sessions[1]?.setup).toBeUndefined();
    expect(spec.sessions[0]?.steps.map((s) => s.step)).toEqual([
      { name: 's1a', session: 'first "one"', sql: 'SELECT 1;' },
      { name: 's1-b', session: 'first "one"', sql: 'SELECT 2;' },
    ]);
    expect(spec.sessions[1]?.steps[0]).toMatchObject({
      text: 'SELECT #not a comment in SQL\n  3;',
      at: { line: 14, column: 6 },
    });
    expect(spec.permutations).toEqual([]);
  });

  it('attaches (*), (step) and (step notices N) annotations to the permutation steps', () => {
    const spec = parseSpec(
      [
        'session s1',
        'step s1a { SELECT 1; }',
        'step s1b { SELECT 2; }',
        'session s2',
        'step s2a { SELECT 3; }',
        'step s2b { SELECT 4; }',
        'step s2c { SELECT 5; }',
        'permutation s1a s2a(*) s1b(s2a, *) s2b(s1b notices 2)',
        'permutation "s2a" "s1a"',
      ].join('\n'),
      'x.spec',
      VERBS,
    );
    expect(spec.permutations).toHaveLength(2);
    const [first, second] = spec.permutations;
    expect(first?.sessions).toEqual(['s1', 's2']);
    expect(first?.steps.map((s) => [s.name, s.blockers])).toEqual([
      ['s1a', undefined],
      ['s2a', [{ kind: 'once' }]],
      ['s1b', [{ kind: 'step', step: 's2a' }, { kind: 'once' }]],
      ['s2b', [{ kind: 'notices', step: 's1b', count: 2 }]],
    ]);
    expect(second?.steps.map((s) => s.name)).toEqual(['s2a', 's1a']);
    // The tester warns about steps that no listed permutation uses.
    expect(spec.unused).toEqual(['s2c']);
  });

  it('parses the extension: RESERVE up to a pause point, with TTL, and RESUME COMMIT / ROLLBACK', () => {
    const spec = parseSpec(
      [
        'session t1',
        'step t1take { RESERVE req-t1 user-0001 sku-lab-01 UNTIL before-commit }',
        'step t1rb   { RESUME ROLLBACK }',
        'session t2',
        'step t2take { reserve req-t2 user-0002 sku-lab-01 ttl 500 }',
        'step t2fin  { Resume Commit }',
      ].join('\n'),
      'x.spec',
      VERBS,
    );
    const steps = spec.sessions.flatMap((s) => s.steps.map((t) => t.step));
    expect(steps).toEqual([
      {
        ...reservation('RESERVE', { node: 1, of: 1 }),
        name: 't1take',
        session: 't1',
        requestKey: 'req-t1',
        reserve: { requestKey: 'req-t1', user: 'user-0001', sku: 'sku-lab-01', ttlMs: 60_000 },
        until: 'before-commit',
      },
      { name: 't1rb', session: 't1', resume: 'rollback' },
      {
        ...reservation('RESERVE', { node: 1, of: 1 }),
        name: 't2take',
        session: 't2',
        requestKey: 'req-t2',
        reserve: { requestKey: 'req-t2', user: 'user-0002', sku: 'sku-lab-01', ttlMs: 500 },
      },
      { name: 't2fin', session: 't2', resume: 'commit' },
    ]);
    expect(spec.sessions[0]?.steps[0]?.text).toBe('RESERVE req-t1 user-0001 sku-lab-01 UNTIL before-commit');
  });

  it.each([
    [
      'session s1\nstep a { SELECT 1; }\nstep b { RESERVE k u s UNTIL before-comit }',
      /^x\.spec:3:30: unknown pause point "before-comit"; choose one of: after-read, before-commit/,
    ],
    [
      'session s1\nstep a { RESERVE k u s TTL soon }',
      /^x\.spec:2:28: TTL must be a whole number of milliseconds, got "soon"$/,
    ],
    ['session s1\nstep a { RESERVE k u }', /^x\.spec:2:20: RESERVE needs a request key, a user and a sku$/],
    [
      'session s1\nstep a { RESUME LATER }',
      /^x\.spec:2:17: RESUME takes COMMIT, ROLLBACK or KILL, got "LATER"$/,
    ],
    [
      'session s1\nstep a { RESERVE k u s UNTIL after-read UNTIL after-read }',
      /^x\.spec:2:41: UNTIL is given twice$/,
    ],
    [
      'session s1\nstep a { SELECT 1; }\npermutation a b',
      /^x\.spec:3:15: undefined step "b" specified in permutation$/,
    ],
    ['session s1\nstep a { SELECT 1; }\nstep a { SELECT 2; }', /^x\.spec:3:6: duplicate step name "a"$/],
    [
      'session s1\nstep a { SELECT 1; }\nstep b { SELECT 2; }\npermutation a b(a)',
      /^x\.spec:4:17: permutation step "b" cannot block on its own session$/,
    ],
    [
      'session s1\nstep a { SELECT 1; }\nsession s2\nstep b { SELECT 2; }\npermutation b(a)',
      /^x\.spec:5:15: undefined blocking step "a" referenced in permutation step "b"$/,
    ],
    [
      'session s1\nstep a { SELECT 1; }\npermutation a(*',
      /^x\.spec:3:16: expected "," or "\)" in the annotation of "a", got end of file$/,
    ],
    ['session s1\nstep a { SELECT 1;\n', /^x\.spec:2:8: unterminated sql block$/],
    ['session s1\nstep a { SELECT 1; }\n@', /^x\.spec:3:1: syntax error: unexpected character "@"$/],
    ['session s1\nstep "a\nb" { SELECT 1; }', /^x\.spec:2:8: unexpected newline in quoted identifier$/],
    [
      'session s1\nsetup { BEGIN; }\nteardown { COMMIT; }',
      /^x\.spec:3:1: session "s1" needs at least one step$/,
    ],
    ['setup { SELECT 1; }\nstep a { SELECT 1; }', /^x\.spec:2:1: expected "session", got "step"$/],
    ['session step\nstep a { SELECT 1; }', /^x\.spec:1:9: expected a session name, got "step"$/],
    [
      'session s1\nstep a { SELECT 1; }\nsetup { SELECT 2; }',
      /^x\.spec:3:1: expected "session", "permutation" or end of file, got "setup"$/,
    ],
  ])('rejects %j in one line with file:line:column', (source, message) => {
    const error = parseError(source);
    expect(error).toMatch(message);
    expect(error).not.toContain('\n');
  });
});

describe("spec grammar: the engine's own steps", () => {
  it("parses the engine's other steps: ON a node, RESUME KILL, STATUS, REMAINING, WAIT and RESTART", () => {
    const spec = parseSpec(
      [
        'session t1',
        'step a { RESERVE k1 u1 sku ON 2/3 }',
        'step b { CONFIRM k1 UNTIL before-commit ON 1/3 }',
        'step c { resume kill }',
        'step d { STATUS k1 }',
        'step e { Remaining sku }',
        'step f { WAIT 250 }',
        'step g { RESTART 3/3 }',
        'step h { EXPIRE on 2/3 }',
        // Only a body that starts with one of the verbs is a step of the engine's: this is SQL.
        'step i { CREATE INDEX x ON t }',
      ].join('\n'),
      'x.spec',
      VERBS,
    );
    expect(spec.sessions[0]?.steps.map((s) => s.step)).toEqual([
      {
        ...reservation('RESERVE', { node: 2, of: 3 }),
        name: 'a',
        session: 't1',
        requestKey: 'k1',
        reserve: { requestKey: 'k1', user: 'u1', sku: 'sku', ttlMs: 60_000 },
        on: { node: 2, of: 3 },
      },
      {
        ...reservation('CONFIRM', { node: 1, of: 3 }),
        name: 'b',
        session: 't1',
        operation: 'confirm',
        requestKey: 'k1',
        until: 'before-commit',
        on: { node: 1, of: 3 },
      },
      { name: 'c', session: 't1', resume: 'kill' },
      { ...reservation('STATUS'), name: 'd', session: 't1', read: 'status', requestKey: 'k1' },
      { ...reservation('REMAINING'), name: 'e', session: 't1', read: 'remaining', sku: 'sku' },
      { name: 'f', session: 't1', waitMs: 250 },
      { name: 'g', session: 't1', restart: { node: 3, of: 3 } },
      {
        ...reservation('EXPIRE', { node: 2, of: 3 }),
        name: 'h',
        session: 't1',
        operation: 'expire',
        on: { node: 2, of: 3 },
      },
      { name: 'i', session: 't1', sql: 'CREATE INDEX x ON t' },
    ]);
  });

  it.each([
    ['session s1\nstep a { STATUS }', /^x\.spec:2:16: STATUS needs a request key$/],
    ['session s1\nstep a { STATUS k extra }', /^x\.spec:2:19: unexpected "extra" after STATUS k$/],
    ['session s1\nstep a { REMAINING }', /^x\.spec:2:19: REMAINING needs a sku$/],
    ['session s1\nstep a { WAIT 0 }', /^x\.spec:2:15: WAIT must be a whole number of milliseconds, got "0"$/],
    [
      'session s1\nstep a { RESTART 3/2 }',
      /^x\.spec:2:18: RESTART needs <i>\/<n>, node i of n counted from 1, got "3\/2"$/,
    ],
    [
      'session s1\nstep a { RESERVE k u s ON two }',
      /^x\.spec:2:27: ON needs <i>\/<n>, node i of n counted from 1, got "two"$/,
    ],
    [
      'session s1\nstep a { RESERVE k u s ON 1/2 TTL 5 }',
      /^x\.spec:2:24: ON <i>\/<n> comes last in the step$/,
    ],
    [
      'session s1\nstep a { STATUS k ON 1/1 }',
      /^x\.spec:2:19: STATUS runs on no node; ON <i>\/<n> ends a RESERVE, CONFIRM, RELEASE, EXPIRE or DISABLE$/,
    ],
    [
      'session s1\nstep a { RESERVE k u s ON 1/2 }\nsession s2\nstep b { RESERVE k2 u2 s }',
      /^x\.spec:4:10: step "b" runs on node 1\/1 \(no ON\), but step "a" runs on node 1\/2: every node of a spec is one of the same count$/,
    ],
    [
      'session s1\nstep a { RESTART 1/2 }\nstep b { EXPIRE ON 1/3 }',
      /^x\.spec:3:10: step "b" runs on node 1\/3, but step "a" restarts node 1\/2: /,
    ],
  ])('rejects %j in one line with file:line:column', (source, message) => {
    const error = parseError(source);
    expect(error).toMatch(message);
    expect(error).not.toContain('\n');
  });
});

describe('spec grammar: PAY, the payment contract', () => {
  it("parses PAY with the isolation-matrix chapter's payload, AMOUNT and UNTIL in either order, and its fingerprint", () => {
    const spec = parseSpec(
      [
        'session w1',
        'step a { PAY idem-order-1001 pay-worker-a UNTIL before-commit }',
        'step b { pay idem-order-1001 pay-other until between-transactions amount 9999 }',
      ].join('\n'),
      'x.spec',
      VERBS,
    );
    const seed = { order: 'order-1001', currency: 'CNY', merchant: 'demo' };
    expect(spec.sessions[0]?.steps.map((s) => s.step)).toEqual([
      {
        contract: 'payment',
        verb: 'PAY',
        name: 'a',
        session: 'w1',
        requestKey: 'idem-order-1001',
        pay: {
          idempotencyKey: 'idem-order-1001',
          paymentId: 'pay-worker-a',
          amount: 3000,
          ...seed,
          fingerprint: requestFingerprint({ amount: 3000, currency: 'CNY', merchant: 'demo' }),
        },
        until: 'before-commit',
      },
      {
        contract: 'payment',
        verb: 'PAY',
        name: 'b',
        session: 'w1',
        requestKey: 'idem-order-1001',
        pay: {
          idempotencyKey: 'idem-order-1001',
          paymentId: 'pay-other',
          amount: 9999,
          ...seed,
          fingerprint: requestFingerprint({ amount: 9999, currency: 'CNY', merchant: 'demo' }),
        },
        until: 'between-transactions',
      },
    ]);
  });

  it.each([
    ['session s1\nstep a { PAY k }', /^x\.spec:2:14: PAY needs an idempotency key and a payment id$/],
    [
      'session s1\nstep a { PAY k p AMOUNT 0 }',
      /^x\.spec:2:25: AMOUNT must be a whole number of minor units, at least 1, got "0"$/,
    ],
    [
      'session s1\nstep a { PAY k p UNTIL after-memory-before-ledger }',
      /^x\.spec:2:24: PAY has no pause point "after-memory-before-ledger"; choose one of: after-read, before-commit, between-transactions$/,
    ],
    ['session s1\nstep a { PAY k p AMOUNT 5 AMOUNT 6 }', /^x\.spec:2:27: AMOUNT is given twice$/],
    ['session s1\nstep a { PAY k p UNTIL }', /^x\.spec:2:18: UNTIL needs a value$/],
    [
      'session s1\nstep a { PAY k p TTL 5 }',
      /^x\.spec:2:18: unexpected "TTL" in PAY; expected AMOUNT <minor units>, CURRENCY <code>, MERCHANT <id>, ORDER <id> or UNTIL <pause point>$/,
    ],
    [
      'session s1\nstep a { PAY k p ON 1/1 }',
      /^x\.spec:2:18: PAY runs on no node; ON <i>\/<n> ends a RESERVE, CONFIRM, RELEASE, EXPIRE or DISABLE$/,
    ],
  ])('rejects %j in one line with file:line:column', (source, message) => {
    const error = parseError(source);
    expect(error).toMatch(message);
    expect(error).not.toContain('\n');
  });
});

const multinomial = (sizes: number[]) => {
  const factorial = (n: number): number => (n <= 1 ? 1 : n * factorial(n - 1));
  return sizes.reduce((acc, n) => acc / factorial(n), factorial(sizes.reduce((a, b) => a + b, 0)));
};

describe('all permutations', () => {
  it.each([[[2, 2]], [[3, 2, 1]], [[2, 2, 2]], [[4, 1]], [[1]]])(
    'piles of %j give the multinomial count, all distinct, each pile in its own order',
    (sizes) => {
      const piles = sizes.map((n, p) => Array.from({ length: n }, (_, i) => `p${p}.${i}`));
      const all = [...interleavings(piles)];
      expect(all).toHaveLength(multinomial(sizes));
      expect(new Set(all.map((a) => a.join(' '))).size).toBe(all.length);
      for (const order of all) {
        expect(order).toHaveLength(piles.flat().length);
        for (const pile of piles) expect(order.filter((x) => pile.includes(x))).toEqual(pile);
      }
    },
  );

  it("comes in the isolation tester's order (that of PostgreSQL's expected/nowait.out)", () => {
    const step = (name: string, session: string): Step => ({ name, session, sql: '' });
    const orders = [
      ...allPermutations([
        { name: 's1', steps: [step('s1a', 's1'), step('s1b', 's1')] },
        { name: 's2', steps: [step('s2a', 's2'), step('s2b', 's2')] },
      ]),
    ].map((p) => p.steps.map((s) => s.name).join(' '));
    expect(orders).toEqual([
      's1a s1b s2a s2b',
      's1a s2a s1b s2b',
      's1a s2a s2b s1b',
      's2a s1a s1b s2b',
      's2a s1a s2b s1b',
      's2a s2b s1a s1b',
    ]);
  });

  it('is what a spec without permutations runs', () => {
    const spec = parseSpec(readFileSync(specPath('nowait'), 'utf8'), 'nowait.spec', VERBS);
    expect(spec.permutations).toEqual([]);
    expect([...permutationsOf(spec)]).toHaveLength(6);
  });
});

describe("the tester's output format", () => {
  it('prints result sets as PQprint: numbers right-aligned, widths in bytes, NULL as blank', () => {
    const table = formatTable({
      columns: ['n', 't', 'e'],
      rows: [
        ['1', 'é', '1e5'],
        ['-20', null, 'E1'],
      ],
    });
    expect(table).toBe(
      ['  n|t |e  ', '---+--+---', '  1|é|1e5', '-20|  |E1 ', '(2 rows)', '', ''].join('\n'),
    );
    expect(formatTable({ columns: ['id'], rows: [] })).toBe('id\n--\n(0 rows)\n\n');
    expect(formatTable({ columns: [], rows: [[]] })).toBe('');
  });

  it('diffs expected and actual output in unified form', () => {
    expect(unifiedDiff('a\nb\n', 'a\nb\n', { expected: 'e', actual: 'a' })).toEqual([]);
    expect(unifiedDiff('a\nb\nc\n', 'a\nx\nc\n', { expected: 'e.out', actual: 'actual' })).toEqual([
      '--- e.out',
      '+++ actual',
      '@@ -1,4 +1,4 @@',
      ' a',
      '-b',
      '+x',
      ' c',
      ' ',
    ]);
  });

  it('reports (*), (step) and (step notices N) annotations as the tester does', async () => {
    const spec = parseSpec(
      [
        'setup { CREATE TABLE annotated (id int PRIMARY KEY, v int NOT NULL); INSERT INTO annotated VALUES (1, 0); }',
        'teardown { DROP TABLE annotated; }',
        'session s1',
        'setup { BEGIN; }',
        'step s1u { UPDATE annotated SET v = 1 WHERE id = 1; }',
        'step s1c { COMMIT; }',
        'step s1n { DO $$ BEGIN RAISE NOTICE $n$hello$n$; END $$; }',
        'session s2',
        "step s2q { SELECT 'seen' AS q; }",
        'step s2u { UPDATE annotated SET v = 2 WHERE id = 1 RETURNING v; }',
        'permutation s2q(*) s1u s1c',
        'permutation s1u s2u s1c(s2u)',
        'permutation s2q(s1n notices 1) s1n',
      ].join('\n'),
      'annotated.spec',
      VERBS,
    );
    let output = '';
    await runSpec(spec, {
      connectionString: db().connectionString,
      timeoutMs: 20_000,
      write: (text) => {
        output += text;
      },
      warn: (line) => {
        throw new Error(line);
      },
    });
    const seen = 'q   \n----\nseen\n(1 row)\n\n';
    expect(output).toBe(
      [
        'Parsed test spec with 2 sessions\n',
        '\nstarting permutation: s2q s1u s1c\n',
        "step s2q: SELECT 'seen' AS q; <waiting ...>\n",
        'step s1u: UPDATE annotated SET v = 1 WHERE id = 1;\n',
        `step s2q: <... completed>\n${seen}`,
        'step s1c: COMMIT;\n',
        '\nstarting permutation: s1u s2u s1c\n',
        'step s1u: UPDATE annotated SET v = 1 WHERE id = 1;\n',
        'step s2u: UPDATE annotated SET v = 2 WHERE id = 1 RETURNING v; <waiting ...>\n',
        'step s1c: COMMIT; <waiting ...>\n',
        'step s2u: <... completed>\nv\n-\n2\n(1 row)\n\n',
        'step s1c: <... completed>\n',
        '\nstarting permutation: s2q s1n\n',
        "step s2q: SELECT 'seen' AS q; <waiting ...>\n",
        's1: NOTICE:  hello\n',
        'step s1n: DO $$ BEGIN RAISE NOTICE $n$hello$n$; END $$;\n',
        `step s2q: <... completed>\n${seen}`,
      ].join(''),
    );
  });
});

describe('strategy steps from a spec run through the engine', () => {
  const source = [
    "# The flash-sale lab's false sold-out written as a spec: 2 units.",
    'session t1',
    'step "t1-take" { RESERVE req-t1 user-0001 sku-lab-01 UNTIL before-commit }',
    'step "t1-rollback" { RESUME ROLLBACK }',
    'session t2',
    'step "t2-take" { RESERVE req-t2 user-0002 sku-lab-01 }',
    'session t3',
    'step "t3-ask" { RESERVE req-t3 user-0003 sku-lab-01 }',
    'permutation "t1-take" "t2-take" "t3-ask" "t1-rollback"',
  ].join('\n');

  it.each([
    ['hot-row', { t2: true, t3: true }, 'HELD'],
    ['skip-locked-slots', { t2: false, t3: false }, 'SOLD_OUT'],
  ] as const)('%s: blocked %j, t3 answered %s', async (id, blocked, t3) => {
    const { strategy } = await loadStrategy(id);
    const schema = await db().createCaseSchema(`spec ${id}`);
    await admin().query(`SET search_path TO ${schema}`);
    try {
      await strategy.setup(admin(), [{ sku: 'sku-lab-01', total: 2 }]);
    } finally {
      await admin().query('RESET search_path');
    }
    const [permutation] = parseSpec(source, 'false-sold-out.spec', VERBS).permutations;
    if (!permutation) throw new Error('no permutation');
    const records = await runPermutation(permutation, {
      connectionString: db().connectionString,
      schema,
      contract: { verbs: RESERVATION_VERBS, design: strategy },
      timeoutMs: 20_000,
    });
    const by = new Map(records.map((r) => [r.step, r]));
    expect(by.get('t1-take')?.result).toMatchObject({ status: 'ok', paused: 'before-commit' });
    expect(by.get('t2-take')).toMatchObject({ blocked: blocked.t2, result: { answer: { outcome: 'HELD' } } });
    expect(by.get('t3-ask')).toMatchObject({ blocked: blocked.t3, result: { answer: { outcome: t3 } } });
    expect(by.get('t1-rollback')?.result).toMatchObject({ status: 'ok', rolledBack: true });
  });
});

describe('PAY steps from a spec run through the engine', () => {
  it('holds a pay at its point, sees the next one blocked behind it, and rolls it back there', async () => {
    const { design } = await loadPaymentDesign('payment-on-conflict');
    const schema = await db().createCaseSchema('spec pay');
    await admin().query(`SET search_path TO ${schema}`);
    try {
      await design.setup(admin());
    } finally {
      await admin().query('RESET search_path');
    }
    const source = [
      'session w1',
      'step "w1-pay" { PAY idem-order-1001 pay-a UNTIL before-commit }',
      'step "w1-undo" { RESUME ROLLBACK }',
      'session w2',
      'step "w2-pay" { PAY idem-order-1001 pay-b }',
      'permutation "w1-pay" "w2-pay" "w1-undo"',
    ].join('\n');
    const [permutation] = parseSpec(source, 'pay.spec', VERBS).permutations;
    if (!permutation) throw new Error('no permutation');
    const records = await runPermutation(permutation, {
      connectionString: db().connectionString,
      schema,
      contract: { verbs: PAYMENT_VERBS, design },
      timeoutMs: 20_000,
    });
    const by = new Map(records.map((r) => [r.step, r]));
    expect(by.get('w1-pay')).toMatchObject({
      requestKey: 'idem-order-1001',
      result: { paused: 'before-commit' },
    });
    expect(by.get('w1-undo')?.result).toMatchObject({ status: 'ok', rolledBack: true });
    // With w1 rolled back, w2's insert is the key's only one: it creates its own payment.
    expect(by.get('w2-pay')).toMatchObject({
      blocked: true,
      result: { status: 'ok', answer: { outcome: 'CREATED', response: { paymentId: 'pay-b' } } },
    });
    // Without a payment design, a PAY step is refused in one line.
    await expect(
      runPermutation(permutation, { connectionString: db().connectionString, schema, timeoutMs: 20_000 }),
    ).rejects.toThrow(/^step w1-pay calls pay, but no design of the payment contract was given$/);
  });
});

describe('reservebench spec', () => {
  it.each(SPECS)('%s.spec gives exactly its expected output', async (name) => {
    const run = await runCli(['spec', specPath(name), '--expected', expectedPath(name)], {
      DATABASE_URL: serverUrl,
    });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(`output of ${specPath(name)} matches ${expectedPath(name)}\n`);
    expect(run.code).toBe(0);
  });

  it('prints the output itself without --expected', async () => {
    const run = await runCli(['spec', specPath('deadlock')], { DATABASE_URL: serverUrl });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(readFileSync(expectedPath('deadlock'), 'utf8'));
    // Exactly one session is chosen as the deadlock victim, and it is always s2.
    expect(run.stdout.match(/deadlock detected/g)).toHaveLength(1);
    expect(run.stdout).toContain('step s2a: <... completed>\nERROR:  deadlock detected\n');
  });

  describe('with files of its own', () => {
    let dir = '';
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'reservebench-spec-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('exits 1 with a unified diff when the output differs from --expected', async () => {
      const wrong = join(dir, 'lost-update.out');
      writeFileSync(
        wrong,
        readFileSync(expectedPath('lost-update'), 'utf8').replace(
          'sku-lab-01|        9',
          'sku-lab-01|        8',
        ),
      );
      const run = await runCli(['spec', specPath('lost-update'), '--expected', wrong], {
        DATABASE_URL: serverUrl,
      });
      expect(run.code).toBe(1);
      expect(run.stdout).toContain(`--- ${wrong}\n+++ output of ${specPath('lost-update')}\n`);
      expect(run.stdout).toContain('\n-sku-lab-01|        8\n+sku-lab-01|        9\n');
      expect(run.stderr.trim().split('\n')).toEqual([
        `reservebench: output of ${specPath('lost-update')} differs from ${wrong}`,
      ]);
    });

    it('exits 2 with one line naming file, line and column for a malformed spec', async () => {
      const bad = join(dir, 'bad.spec');
      writeFileSync(bad, 'session s1\nstep s1a { SELECT 1; }\npermutation s1a s9\n');
      const run = await runCli(['spec', bad], { DATABASE_URL: serverUrl });
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(`reservebench: ${bad}:3:17: undefined step "s9" specified in permutation\n`);
    });

    it('exits 1 with one line naming the step when a permutation cannot go on', async () => {
      const stuck = join(dir, 'stuck.spec');
      writeFileSync(
        stuck,
        [
          'setup { CREATE TABLE stuck (id int PRIMARY KEY); INSERT INTO stuck VALUES (1); }',
          'teardown { DROP TABLE stuck; }',
          'session s1',
          'setup { BEGIN; }',
          'step s1lock { SELECT id FROM stuck FOR UPDATE; }',
          'session s2',
          'step s2lock { SELECT id FROM stuck FOR UPDATE; }',
          'permutation s1lock s2lock',
        ].join('\n'),
      );
      const run = await runCli(['spec', stuck, '--timeout-ms', '300'], { DATABASE_URL: serverUrl });
      expect(run.code).toBe(1);
      expect(run.stdout).toContain('step s2lock: SELECT id FROM stuck FOR UPDATE; <waiting ...>\n');
      expect(run.stderr).toBe(
        'reservebench: blocked step(s) s2lock did not complete within 0.3 s: a session cannot make progress\n',
      );
    });
  });
});
