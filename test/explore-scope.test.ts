/**
 * Issue 37, the exhaustive scope, without a database: every program up to its length once up to renaming
 * (no two programs of the scope are one program with other names), the default budget covering every
 * program of the chosen length for a design with every operation, every shape of name in the namings, the
 * programs of a batch named apart so that no fold a design could make (case, trim, truncation, unicode
 * normalization, a LIKE pattern) joins two of them, batches taking turns round by round with one WAIT for
 * all, and a batch written as a spec that parses back to the names that ran.
 */
import { describe, expect, it } from 'vitest';
import {
  KEY_FAMILIES,
  NAMINGS,
  SKU_FAMILIES,
  USER_FAMILIES,
} from '../harness/contracts/reservation/explore/names.ts';
import { type Program, specText } from '../harness/contracts/reservation/explore/program.ts';
import { reservationScope } from '../harness/contracts/reservation/explore/scope-programs.ts';
import type { Template } from '../harness/contracts/reservation/explore/template.ts';
import { RESERVATION_VERBS } from '../harness/contracts/reservation/spec/reservation-verbs.ts';
import { EXPLORE_DEFAULTS, SCOPE_MAX_LENGTH } from '../harness/explore/explore-defaults.ts';
import { isContractStep } from '../harness/interleaving/permutation.ts';
import { parseSpec } from '../harness/interleaving/spec-parser.ts';
import type { Strategy } from '../strategies/contract.ts';
import hotRow from '../strategies/hot-row.ts';

/** A design with every operation of the contract (hot-row has all but disable). */
const everyOperation: Strategy = { ...hotRow, disable: async () => true };

/** The template with its keys, users and skus renumbered in order of first use: its class under renaming. */
function canonical(t: Template): string {
  const maps = {
    key: new Map<number, number>(),
    user: new Map<number, number>(),
    sku: new Map<number, number>(),
  };
  const name = (kind: keyof typeof maps, i: number) => {
    const map = maps[kind];
    if (!map.has(i)) map.set(i, map.size);
    return map.get(i);
  };
  const ops = t.ops.map((op) => {
    const named: Record<string, unknown> = { ...op };
    if ('key' in op) named.key = name('key', op.key);
    if ('user' in op) named.user = name('user', op.user);
    if ('sku' in op) {
      named.sku = name('sku', op.sku);
      named.stock = t.stock[op.sku];
    }
    return JSON.stringify(named);
  });
  return ops.join(';');
}

const scope = reservationScope(everyOperation);
const upTo = (length: number) => [...scope.programs(length)];

describe('the exhaustive scope', () => {
  it('holds every program up to its length once up to renaming, shortest first', () => {
    const programs = upTo(2);
    const seen = new Set<string>();
    for (const p of programs) {
      const id = `${canonical(p.template)} ${p.naming.key.id}/${p.naming.sku.id}/${p.naming.user.id}`;
      expect(seen.has(id), id).toBe(false);
      seen.add(id);
    }
    const lengths = programs.map((p) => scope.length(p));
    expect(lengths).toEqual([...lengths].sort((a, b) => a - b));
  });

  it("runs every program of the default run's length within its default budget, for every operation", () => {
    const size = upTo(EXPLORE_DEFAULTS.scopeLengthInRun).length;
    expect(size).toBeLessThanOrEqual(EXPLORE_DEFAULTS.scopeInRun);
    expect(EXPLORE_DEFAULTS.scopeLengthInRun).toBeLessThan(SCOPE_MAX_LENGTH);
  });

  it('gives every shape of key, sku and user in its namings, a refused key only beside plain names', () => {
    for (const [families, kind] of [
      [KEY_FAMILIES, 'key'],
      [SKU_FAMILIES, 'sku'],
      [USER_FAMILIES, 'user'],
    ] as const)
      expect(new Set(NAMINGS.map((n) => n[kind].id))).toEqual(new Set(families.map((f) => f.id)));
    for (const n of NAMINGS.filter((x) => ['past-limit', 'spaces', 'unicode'].includes(x.key.id)))
      expect([n.sku.id, n.user.id]).toEqual(['plain', 'plain']);
  });
});

/** The ways a design could take two names for one: each fixture of test/fixtures/scope/ makes one. */
const FOLDS: ((name: string) => string)[] = [
  (n) => n.toLowerCase(),
  (n) => n.trim(),
  (n) => n.slice(0, 64),
  (n) => n.normalize('NFKC'),
  (n) => n.replace(/[_%]/g, '?'),
];

/** Every name a program of the batch uses, with the tag it starts with (its program's index). */
function taggedNames(program: Program): { name: string; tag: string }[] {
  const names = [
    ...program.stock.map((s) => s.sku),
    ...program.sessions
      .flat()
      .flatMap((op) => [
        ...('key' in op ? [op.key] : []),
        ...('sku' in op ? [op.sku] : []),
        ...('user' in op ? [op.user] : []),
      ]),
  ];
  return names.map((name) => ({ name, tag: /^\s?(\d+)/.exec(name)?.[1] ?? '' }));
}

describe('a batch of the scope', () => {
  const programs = upTo(2);
  const batch = scope.batch(programs.filter((p) => scope.groupOf(p) === '').slice(0, 120));

  it('names its programs apart under every fold a design could make of a name', () => {
    const names = taggedNames(scope.batch(programs.slice(0, 400)));
    expect(names.every((n) => n.tag !== '')).toBe(true);
    for (const fold of FOLDS) {
      const owners = new Map<string, string>();
      for (const { name, tag } of names) {
        const owner = owners.get(fold(name)) ?? tag;
        expect(owner, `${JSON.stringify(name)} folds onto a name of program ${owner}`).toBe(tag);
        owners.set(fold(name), tag);
      }
    }
  });

  it('takes turns round by round, one WAIT for all, on one session where an expire joins every sku', () => {
    const waiting = programs.filter((p) => scope.groupOf(p) === '1').slice(0, 20);
    const text = specText(scope.batch(waiting));
    expect(text.match(/WAIT/g)).toHaveLength(1);
    const expiring = programs.filter((p) => scope.groupOf(p) === ' expire').slice(0, 10);
    expect(scope.batch(expiring).sessions).toHaveLength(1);
    expect(batch.sessions.length).toBeGreaterThan(1);
    expect(batch.rounds?.[0]).toBe(0);
  });

  it('is written as a spec that parses back to the names that ran, quoted where they hold a space', () => {
    const odd = programs.filter((p) => p.naming.key.id === 'spaces' || p.naming.key.id === 'unicode');
    const program = scope.batch(odd.slice(0, 40));
    const spec = parseSpec(specText(program), 'batch.spec', [RESERVATION_VERBS]);
    const sent = (spec.permutations[0]?.steps ?? []).flatMap((s) =>
      isContractStep(s) && s.verb === 'RESERVE' && s.requestKey !== undefined ? [s.requestKey] : [],
    );
    const rendered = program.sessions.flat().flatMap((op) => (op.op === 'reserve' ? [op.key] : []));
    expect(new Set(sent)).toEqual(new Set(rendered));
    expect(sent.some((k) => /\s/.test(k))).toBe(true);
  });
});
