/**
 * Issue 13, fuzzing (fast-check): generated bad input at the three doors input comes in by.
 *
 * - The command line: argv for every command carrying at least one value that must be refused (odd
 *   numbers, empty values, unknown options, unusable paths, values given twice, a value given to any of
 *   the command's flags, as the command declares them). Every run
 *   ends with exit 2, exactly one line on stderr, no stack trace, nothing on stdout, nothing written,
 *   within its deadline, and without the embedded server starting.
 * - The POST /reserve body check, called directly: a valid request whose key a GET can name, or a reason
 *   on one line; never a throw.
 * - The plug-in loader's check of a module: `{ strategy }` or `{ problem }` on one line; never a throw,
 *   whatever the module holds (getters that throw, proxies, bigints, cyclic-free odd objects).
 *
 * The command lines run in one child (runRefusals), sampled with a seed a failure prints; the other doors
 * are properties whose failures shrink.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../harness/cli/commands/index.ts';
import { checkReserveBody, isRequestKey } from '../harness/contracts/reservation/http/reserve-body.ts';
import { parseAdmission } from '../harness/gate/admission.ts';
import { checkAnswer, strategyFromModule } from '../harness/registry/strategy-module.ts';
import { CHECKS, OUTCOMES } from '../strategies/contract.ts';
import { runRefusals, UNREACHABLE_URL } from './bounded-cli.ts';

const scratch = mkdtempSync(join(tmpdir(), 'reservebench-fuzz-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const aFile = join(scratch, 'a-file');
writeFileSync(aFile, 'not a folder\n');
const SPEC = new URL('../fixtures/reservation/specs/nowait.spec', import.meta.url).pathname;

const ONE_LINE = /^[^\r\n]+$/;
const CANONICAL = /^(0|[1-9][0-9]*)$/;
/** Text spawn() accepts as an argument (no NUL), from the whole of Unicode. */
const text = fc.string({ unit: 'binary', maxLength: 12 }).map((s) => s.replaceAll('\0', ''));

// --- the command line -------------------------------------------------------------------------------

const oddNumber = fc
  .oneof(
    fc.constantFrom('', ' ', '0x10', '1e3', '+5', '5.0', '1_000', '0b1', '0o7', 'Infinity', 'NaN', '٣', '５'),
    fc.constantFrom('05', '-0', '-3', ' 5', '5 ', '5\n', '\t7', '1,5', '10000000000', '99999999999999999999'),
    fc.double().map(String),
    text,
  )
  .filter((v) => !CANONICAL.test(v) || v.length > 9);

const odd = {
  name: fc.oneof(fc.constantFrom('', ' ', ',', 'a,,b', 'hot-row,', ',hot-row', 'hot-row,hot-row'), text),
  url: fc.oneof(
    fc.constantFrom(
      '',
      ' ',
      'localhost:5432',
      'mysql://x/db',
      'http://127.0.0.1:5432/db',
      'postgres//x',
      'ftp:',
    ),
    text.filter((v) => !/postgres/i.test(v)),
  ),
  admission: fc.oneof(
    fc.constantFrom(
      '-1:8',
      '0:8',
      '4',
      '4:',
      ':8',
      '4:8:1',
      '1001:1',
      '4:10001',
      ' 4:8',
      '0x4:8',
      '04:8',
      '',
    ),
    text.filter((v) => parseAdmission(v) === undefined),
  ),
  reports: fc.constantFrom(
    '',
    ' ',
    aFile,
    join(aFile, 'below'),
    '/proc/reservebench-fuzz',
    '/proc/self/rb/x',
  ),
  choice: text.filter((v) => v !== 'listed' && v !== 'all'),
  flagValue: text.filter((v) => v !== 'true' && v !== 'false'),
};

const NUMBERS: Record<string, string[]> = {
  run: ['clients', 'stock', 'repeat', 'timeout-ms', 'threads'],
  bench: ['clients', 'stock', 'wait-ms', 'warmup-ms', 'duration-ms', 'threads', 'trials', 'timeout-ms'],
  serve: ['port', 'stock', 'wait-ms', 'work-ms'],
  spec: ['timeout-ms'],
};
/** Each command's options as it declares them: a generated "unknown" option is none of these. */
const OPTIONS_OF = new Map(COMMANDS.map((c) => [c.name, c.options]));
const KNOWN = new Set([
  ...COMMANDS.flatMap((c) =>
    Object.entries(c.options).flatMap(([name, o]) => [
      name,
      ...(o.kind === 'value' && o.alias ? [o.alias] : []),
    ]),
  ),
  ...['help', 'version'],
]);
const camel = (name: string) => name.replace(/-(.)/g, (_, c: string) => c.toUpperCase());

type Bad = { tokens: readonly string[]; option?: string };

/** A value given to one of the command's flags (`--dry-run=1`), which must not read as false. */
function flagWithValue(command: string): fc.Arbitrary<Bad>[] {
  const flags = Object.entries(OPTIONS_OF.get(command) ?? {}).flatMap(([name, o]) =>
    o.kind === 'flag' ? [name] : [],
  );
  if (flags.length === 0) return [];
  return [
    fc
      .tuple(fc.constantFrom(...flags), odd.flagValue, fc.boolean())
      .map(([name, v, asTyped]) => ({ tokens: [`--${asTyped ? name : camel(name)}=${v}`], option: name })),
  ];
}

/** One option with a value that must be refused, as `--name value` or `--name=value`. */
function badOption(name: string, value: fc.Arbitrary<string>): fc.Arbitrary<Bad> {
  return fc.tuple(value, fc.boolean()).map(([v, joined]) => ({
    tokens: joined || v.startsWith('--') ? [`--${name}=${v}`] : [`--${name}`, v],
    option: name,
  }));
}

const unknownOption: fc.Arbitrary<Bad> = fc
  .tuple(fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/), fc.option(text.filter((v) => !v.startsWith('-'))))
  .filter(([name]) => !KNOWN.has(name) && !KNOWN.has(camel(name)) && !name.startsWith('no-'))
  .map(([name, value]) => ({ tokens: value === null ? [`--${name}`] : [`--${name}`, value] }));

const extraWord: fc.Arbitrary<Bad> = text
  .filter((v) => !v.startsWith('-'))
  .map((word) => ({ tokens: ['--', word] }));

/** bench's --clients is a list: blanks around an item are allowed there, as in every list option. */
const validCounts = (value: string) => {
  const items = value.split(',').map((item) => item.trim());
  return (
    items.every((item) => CANONICAL.test(item) && Number(item) >= 1 && Number(item) <= 250) &&
    new Set(items).size === items.length
  );
};

function badFor(command: string): fc.Arbitrary<Bad> {
  const numbers = (NUMBERS[command] ?? []).map((name) =>
    badOption(
      name,
      command === 'bench' && name === 'clients' ? oddNumber.filter((v) => !validCounts(v)) : oddNumber,
    ),
  );
  const withDatabase = [badOption('database-url', odd.url)];
  const shared = [unknownOption, extraWord, ...flagWithValue(command)];
  switch (command) {
    case 'run':
      return fc.oneof(
        ...numbers,
        ...withDatabase,
        ...shared,
        ...['strategy', 'scenario', 'isolation'].map((name) => badOption(name, odd.name)),
        badOption('reports', odd.reports),
        badOption('permutations', odd.choice),
        fc.constant<Bad>({ tokens: ['--stock', '1', '--stock', '2'], option: 'stock' }),
        // Not http(s), or nothing there: refused before any case; a --target-… option without --target.
        badOption('target', odd.url),
        badOption('target-expect', text),
        badOption('caught-by', odd.name),
      );
    case 'bench':
      return fc.oneof(
        ...numbers,
        ...withDatabase,
        ...shared,
        badOption('strategy', odd.name),
        badOption('admission', odd.admission),
        badOption('reports', odd.reports),
      );
    case 'serve':
      return fc.oneof(
        ...numbers,
        ...withDatabase,
        ...shared,
        badOption('admission', odd.admission),
        badOption('strategy', odd.name),
        badOption(
          'node',
          text.filter((v) => !/^[1-9][0-9]*\/[1-9][0-9]*$/.test(v)),
        ),
        badOption(
          'schema',
          text.filter((v) => !/^[a-z_][a-z0-9_]{0,62}$/.test(v)),
        ),
      );
    case 'spec':
      return fc.oneof(
        ...numbers,
        ...withDatabase,
        ...shared,
        badOption('expected', fc.constantFrom('', ' ')),
      );
    default:
      return fc.oneof(unknownOption, ...flagWithValue(command));
  }
}

/** Options every command accepts as they are: mixed in so the bad one is not always alone. */
const GOOD: Record<string, string[][]> = {
  run: [['--json'], ['--keep'], ['--repeat', '2'], ['--clients', '4'], ['--scenario', 'contention']],
  bench: [['--json'], ['--clients', '1,4'], ['--threads', '1'], ['--strategy', 'hot-row']],
  serve: [
    ['--port', '0'],
    ['--stock', '5'],
    ['--work-ms', '0'],
  ],
  spec: [['--timeout-ms', '5000']],
  list: [['--json']],
  compare: [['--json']],
};

/** The words a command needs before its options. */
const WORDS: Record<string, string[]> = {
  spec: [SPEC],
  compare: [join(scratch, 'base.json'), join(scratch, 'new.json')],
};

const argv = fc
  .constantFrom(...COMMANDS.map((c) => c.name))
  .chain((command) =>
    fc.record({
      command: fc.constant(command),
      good: fc.subarray(GOOD[command] ?? []),
      bad: badFor(command),
      unreachable: fc.boolean(),
    }),
  )
  .map(({ command, good, bad, unreachable }) => {
    // A run that gets past its checks meets a server that is not there (exit 3) or, without one, would
    // start the embedded server: either fails the property.
    const database =
      unreachable && bad.option !== 'database-url' && 'database-url' in (OPTIONS_OF.get(command) ?? {})
        ? ['--database-url', UNREACHABLE_URL]
        : [];
    const afterWords = bad.tokens[0] === '--';
    return [
      command,
      ...(WORDS[command] ?? []),
      ...good.flat(),
      ...(afterWords ? database : []),
      ...bad.tokens,
      ...(afterWords ? [] : database),
    ];
  });

/** Bad argv lines per run: one child runs them all (runRefusals), each in a folder of its own. */
const ARGV_RUNS = 40;

describe('fuzzing the command line', () => {
  it('refuses every generated bad argv with exit 2 and one line, before anything starts', async () => {
    const seed = Date.now() % 2 ** 31;
    const lines = fc.sample(argv, { seed, numRuns: ARGV_RUNS });
    const cases = lines.map((args) => ({ args, cwd: mkdtempSync(join(scratch, 'cwd-')) }));
    const batch = await runRefusals(cases, { timeoutMs: 120_000 });
    expect(batch.leftInTmp, `seed ${seed}`).toEqual([]);
    cases.forEach(({ args, cwd }, i) => {
      const run = batch.answers[i];
      const written = readdirSync(cwd);
      const seen = JSON.stringify({ seed, args, ...run });
      expect(run?.code, seen).toBe(2);
      expect(run?.stderr, seen).toMatch(/^reservebench: [^\n]+\n$/);
      expect(run?.stderr, seen).not.toMatch(/\n\s+at /);
      expect(run?.stdout, seen).toBe('');
      expect(written, seen).toEqual([]);
    });
  }, 240_000);
});

// --- the POST /reserve body --------------------------------------------------------------------------

const fieldValue = fc.oneof(
  fc.constantFrom('.', '..', '', ' ', 'a b', 'order:17@shop', 'k%2F1', 'x'.repeat(129), '٣', '\u2028'),
  fc.stringMatching(/^[A-Za-z0-9._:@-]{1,6}$/),
  text,
);
const ttlText = fc.oneof(
  fc.constantFrom('', '0', '1', '86400000', '86400001', '1e3', '0x10', ' 5', '-1', '60000.0', '007'),
  fc.nat().map(String),
  text,
);
const jsonValue = fc.oneof(
  fieldValue,
  fc.integer().map((n) => n),
  fc.double(),
  fc.constantFrom(null, true, false),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.anything({ maxDepth: 2 }),
);
const formBody = fc
  .record(
    { request_key: fieldValue, user: fieldValue, sku: fieldValue, ttl_ms: ttlText },
    { requiredKeys: [] },
  )
  .map((fields) => new URLSearchParams(fields).toString());
const jsonBody = fc
  .record(
    { request_key: jsonValue, user: jsonValue, sku: jsonValue, ttl_ms: fc.oneof(ttlText, jsonValue) },
    { requiredKeys: [] },
  )
  .map((fields) => JSON.stringify(fields) ?? '');
const anyBody = fc.oneof(
  formBody,
  jsonBody,
  fc.json(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('', '{', '[]'),
);
const contentType = fc.oneof(
  fc.constantFrom(
    '',
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON',
    'text/plain',
  ),
  fc.constantFrom(
    'application/x-www-form-urlencoded',
    'application/jsonx',
    'multipart/form-data; boundary=x',
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

/** The ttl_ms a body carries, as sent; undefined when it carries none. */
function givenTtl(body: string, type: string): unknown {
  if (type.toLowerCase().startsWith('application/json')) {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    return Object.hasOwn(parsed, 'ttl_ms') ? parsed.ttl_ms : undefined;
  }
  return new URLSearchParams(body).get('ttl_ms') ?? undefined;
}

describe('fuzzing the POST /reserve body check', () => {
  it('answers a request its lookup can find, or a one-line reason; never throws', () => {
    fc.assert(
      fc.property(anyBody, contentType, (body, type) => {
        const checked = checkReserveBody(body, type);
        if (!checked.ok) {
          expect(checked.reason).toMatch(ONE_LINE);
          return;
        }
        const { requestKey, user, sku, ttlMs } = checked.request;
        expect(isRequestKey(requestKey)).toBe(true);
        for (const field of [user, sku]) expect(field).toMatch(/^[A-Za-z0-9._:@-]{1,128}$/);
        expect(Number.isInteger(ttlMs) && ttlMs >= 1 && ttlMs <= 86_400_000).toBe(true);
        // A ttl_ms that was given is the one used, never the default in its place.
        const given = givenTtl(body, type);
        if (given !== undefined) expect(Number(given)).toBe(ttlMs);
        // What GET /reservations/{key} gets for this key is this key: no URL normalisation in between.
        const path = `/reservations/${encodeURIComponent(requestKey)}`;
        const seen = new URL(path, 'http://service').pathname;
        expect(decodeURIComponent(seen.slice('/reservations/'.length))).toBe(requestKey);
      }),
      { numRuns: 3000 },
    );
  });
});

// --- the plug-in loader --------------------------------------------------------------------------------

const noop = async () => undefined;
const honest: Record<string, unknown> = {
  id: 'fuzzed',
  title: 'a strategy to break',
  guarantee: 'none: its members are replaced by generated values',
  expect: 'hold',
  pausePoints: { reserve: ['before-commit'] },
  setup: noop,
  reserve: noop,
  status: noop,
  remaining: noop,
  audit: noop,
};
const MEMBERS = [
  ...Object.keys(honest),
  ...[
    'confirm',
    'release',
    'expire',
    'backdate',
    'disable',
    'scenarios',
    'notApplicable',
    'caughtBy',
    'isolation',
  ],
];
const weird = fc.anything({
  maxDepth: 3,
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
  stringUnit: 'binary',
});
/** A module object that throws on every read (fast-check must not hold one: it inspects its values). */
function throwingProxy(): object {
  const fail = () => {
    throw new Error('a proxy\nthat throws');
  };
  return new Proxy(
    {},
    { get: fail, has: fail, ownKeys: fail, getPrototypeOf: fail, getOwnPropertyDescriptor: fail },
  );
}
const moduleObject = fc.oneof(
  weird,
  weird.map((value) => ({ default: value })),
  weird.map((value) => ({ strategy: value })),
  fc
    .record({ member: fc.constantFrom(...MEMBERS), value: weird })
    .map(({ member, value }) => ({ default: { ...honest, [member]: value } })),
  fc.dictionary(text, weird, { maxKeys: 4 }).map((extra) => ({ default: { ...honest, ...extra } })),
  fc
    .dictionary(text, fc.array(fc.oneof(fc.constantFrom(...CHECKS), text), { maxLength: 3 }), { maxKeys: 3 })
    .map((caughtBy) => ({ default: { ...honest, expect: 'violate', caughtBy } })),
  fc
    .dictionary(text, fc.array(text, { maxLength: 3 }), { maxKeys: 3 })
    .map((pausePoints) => ({ default: { ...honest, pausePoints } })),
  fc.constantFrom(...MEMBERS).map((member) => ({
    default: Object.defineProperty({ ...honest }, member, {
      enumerable: true,
      get: () => {
        throw new Error(`reading ${member}\nfails`);
      },
    }),
  })),
  fc.constantFrom('namespace', 'default', 'pausePoints').map((where) => ({ where })),
);

/** Proxies are made per run, after generation. */
function materialised(module: unknown): unknown {
  const where = (module as { where?: unknown } | null)?.where;
  if (where === 'namespace') return throwingProxy();
  if (where === 'default') return { default: throwingProxy() };
  if (where === 'pausePoints') return { default: { ...honest, pausePoints: throwingProxy() } };
  return module;
}

describe('fuzzing the plug-in loader', () => {
  it('gives a strategy or one line of problems for any module, and never throws', () => {
    fc.assert(
      fc.property(moduleObject, (generated) => {
        const module = materialised(generated);
        const checked = strategyFromModule(module);
        if ('problem' in checked) expect(checked.problem).toMatch(ONE_LINE);
        else {
          const exported = module as { default?: unknown; strategy?: unknown };
          expect(checked.strategy).toBe(exported.default ?? exported.strategy);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('records any answer of reserve as an outcome of the contract or a one-line problem', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          weird,
          weird.map((outcome) => ({ outcome })),
          fc.constantFrom(...OUTCOMES).map((outcome) => ({ outcome })),
        ),
        (answer) => {
          const checked = checkAnswer(answer);
          if ('problem' in checked) expect(checked.problem).toMatch(ONE_LINE);
          else expect(OUTCOMES).toContain(checked.answer.outcome);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
