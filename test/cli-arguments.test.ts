/**
 * Issue 13, arguments: a value that used to mean a default in disguise (an empty string, a hex number, a
 * negative admission read as flags, a reports folder that cannot be written, a flag given a value) is
 * refused before anything starts — exit 2, one line naming the option and the value, nothing on stdout,
 * no embedded server, nothing written. The refusals run in one child through the CLI's own main()
 * (runRefusals: a child per case took minutes); a sample of them runs as real `reservebench` processes too,
 * and must answer exactly as the batch did.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oneLineProblem, type Refusal, runBounded, runRefusals, UNREACHABLE_URL } from './bounded-cli.ts';
import { helpListing } from './cli-help.ts';

const scratch = mkdtempSync(join(tmpdir(), 'reservebench-args-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const aFile = join(scratch, 'a-file');
writeFileSync(aFile, 'not a folder\n');
const SPEC = 'fixtures/reservation/specs/nowait.spec';
// A spec drives one contract, and needs a design of it among those --strategy names.
const paySpec = join(scratch, 'pay.spec');
writeFileSync(paySpec, 'session w1\nstep "w1-pay" { PAY idem-1 pay-1 }\npermutation "w1-pay"\n');
const reserveSpec = join(scratch, 'reserve.spec');
writeFileSync(
  reserveSpec,
  'setup { STOCK sku-a 1 }\nsession t1\nstep "t1" { RESERVE k u sku-a }\npermutation "t1"\n',
);
const mixedSpec = join(scratch, 'mixed.spec');
writeFileSync(mixedSpec, 'session t1\nstep "t1" { RESERVE k u s }\nsession w1\nstep "w1" { PAY k p }\n');
const UNREACHABLE = ['--database-url', UNREACHABLE_URL];

type Env = Record<string, string>;
interface Refused {
  args: string[];
  message: RegExp;
  env?: Env;
}

const ODD_VALUES: [string[], RegExp][] = [
  [['run', '--stock', ''], /--stock must be a whole number from 0 to 1000000, got ""/],
  [['run', '--clients', '0x10'], /--clients must be a whole number from 1 to 250, got "0x10"/],
  [['run', '--clients', '1e1'], /--clients .* got "1e1"/],
  [['run', '--repeat', ' 2'], /--repeat .* got " 2"/],
  [['run', '--timeout-ms', '+500'], /--timeout-ms .* got "\+500"/],
  [['run', '--strategy', ''], /--strategy must not be empty, got ""/],
  [['run', '--strategy', 'hot-row,'], /--strategy has an empty item in "hot-row,"/],
  [['run', '--scenario', ''], /--scenario must not be empty, got ""/],
  [['run', '--isolation', ''], /--isolation must not be empty, got ""/],
  [['run', '--stock', '1', '--stock', '2'], /--stock is given more than once \("1", "2"\)/],
  [['bench', '--admission', '-1:8'], /--admission must be LIMIT:WAITING \(e\.g\. 4:8\), .*got "-1:8"/],
  [['bench', '--clients', '4,,16'], /--clients has an empty item in "4,,16"/],
  [['serve', '--admission', '-1:8'], /--admission must be LIMIT:WAITING \(e\.g\. 4:8\), .*got "-1:8"/],
  [['serve', '--port', ''], /--port must be a whole number from 0 to 65535, got ""/],
  [['serve', '--work-ms', ''], /--work-ms must be a whole number from 0 to 60000, got ""/],
  [['run', '--json=yes'], /--json takes no value, got "yes"/],
  [['run', '--scenario', 'contention,contention'], /--scenario names "contention" twice/],
  [['run', '--durability', 'maybe'], /--durability must be on or off, got "maybe"/],
  [
    ['run', '--param', 'bucketed.buckets=0', '--strategy', 'bucketed'],
    /bucketed\.buckets must be a whole number from 1 to 256, got 0/,
  ],
  [['bench', '--param', 'hot-row.x=1', '--strategy', 'hot-row'], /--param: hot-row has no knobs/],
  [
    ['bench', '--strategy', 'hot-row,payment-on-conflict'],
    /reservation designs \(hot-row\) and payment designs \(payment-on-conflict\) cannot share a bench/,
  ],
  [['bench', '--strategy', 'payment-on-conflict', '--burst', '10'], /--burst drives reservations only/],
  [['bench', '--strategy', 'payment-on-conflict', '--rate', '10'], /--rate drives reservations only/],
  [
    [
      'run',
      '--strategy',
      'payment-external-call-inside',
      '--param',
      'payment-external-call-inside.callMs=-1',
    ],
    /--param must be <design>\.<knob>=/,
  ],
  [
    ['bench', '--strategy', 'payment-on-conflict', '--param', 'payment-on-conflict.callMs=1'],
    /--param: payment-on-conflict has no knobs/,
  ],
  [
    ['run', '--param', 'buckets=4'],
    /--param must be <design>\.<knob>=<whole numbers, comma-separated>, got "buckets=4"/,
  ],
  [['bench', '--durability', 'ON'], /--durability must be on or off, got "ON"/],
  [['bench', '--rate', '0'], /--rate must be a whole number from 1 to 1000000, got "0"/],
  [['bench', '--rate', '200,,400'], /--rate has an empty item in "200,,400"/],
  [['bench', '--rate', '2.5'], /--rate must be a whole number from 1 to 1000000, got "2.5"/],
  [
    ['bench', '--rate', '200', '--latency-limit', '0'],
    /--latency-limit must be a whole number from 1 to 600000, got "0"/,
  ],
  [['bench', '--latency-limit', '50'], /--latency-limit needs --rate \(the open model\)/],
  [
    ['bench', '--rate', '200', '--arrivals', 'Poisson'],
    /--arrivals must be constant or poisson, got "Poisson"/,
  ],
  [['bench', '--arrivals', 'poisson'], /--arrivals needs --rate/],
  [['bench', '--rate', '200', '--seed', '7'], /--seed needs --arrivals poisson/],
  [['bench', '--rate', '200', '--admission', '2:4'], /--rate cannot go with --admission/],
  [['bench', '--burst', '150', '--rate', '200'], /--rate cannot go with --burst/],
  [['bench', '--burst', '150', '--trials', '3'], /--trials cannot go with --burst/],
  [['bench', '--burst', '0'], /--burst must be a whole number from 1 to 10000, got "0"/],
  [['bench', '--burst', '10001'], /--burst must be a whole number from 1 to 10000, got "10001"/],
  [
    ['bench', '--burst', '150', '--stock', '10001'],
    /--stock must be a whole number from 1 to 10000, got "10001"/,
  ],
  [['bench', '--burst', '150', '--clients', '4,8'], /--clients takes one count with --burst/],
  [['bench', '--burst', '3', '--processes', '4'], /--processes 4 needs at least as many connections/],
  [['bench', '--processes', '2'], /--processes needs --burst/],
  [['bench', '--burst', '150', '--retries', '3'], /--retries needs --admission/],
  [['run', '--postgres', '13'], /--postgres takes majors from 14, 15, 16, 17, 18, got "13"/],
  [['run', '--postgres', '18.4'], /--postgres takes majors from .*, got "18.4"/],
  [['run', '--postgres', '15,15'], /--postgres names "15" twice/],
  // Each case gets --database-url too: a valid major is refused for that alone (the server is what it is).
  [['run', '--postgres', '15'], /--postgres cannot go with --database-url/],
  [['run', '--target', 'http://127.0.0.1:1', '--durability', 'off'], /--durability cannot go with --target/],
  [['spec', SPEC, '--expected', ''], /--expected must name a file, got ""/],
  [
    ['run', '--strategy', 'hot-row', '--spec', paySpec],
    /pay\.spec:2:6: step "w1-pay" pays \(the payment contract\), but --strategy names no design of the payment contract \(payment-on-conflict, /,
  ],
  [
    ['run', '--strategy', 'payment-on-conflict', '--spec', reserveSpec],
    /reserve\.spec:3:6: step "t1" drives a reservation, but --strategy names no design of the reservation contract \(hot-row, /,
  ],
  [
    ['run', '--spec', mixedSpec],
    /mixed\.spec:4:6: step "w1" pays \(the payment contract\), but step "t1" \(line 2\) drives a reservation: a spec drives one contract/,
  ],
];
const TRAILING_EMPTY: Refused[] = ['run', 'bench'].map((command) => ({
  args: [command, '--strategy', 'hot-row', '--strategy='],
  message: /--strategy must not be empty, got ""/,
  env: { DATABASE_URL: UNREACHABLE_URL },
}));
const COMMAND_TWICE: Refused = {
  args: ['sql', '-c', 'SELECT 1', '--command', 'SELECT 2'],
  message: /--command is given more than once \("SELECT 1", "SELECT 2"\)/,
};
const EMPTY_URL: Refused[] = [['run'], ['bench'], ['serve'], ['spec', SPEC]].map((command) => ({
  args: [...command, '--database-url', ''],
  message: /--database-url must be a postgres:\/\/ or postgresql:\/\/ URL, got ""/,
}));
const NOT_A_URL: Refused = {
  args: ['run', '--database-url', 'localhost:5432'],
  message: /--database-url must be a postgres:\/\/ or postgresql:\/\/ URL, got "localhost:5432"/,
};
const REPORTS: [string, string, RegExp][] = [
  ['a file', aFile, /--reports ".*" cannot be used: ".*a-file" is not a folder/],
  [
    'a folder under a file',
    join(aFile, 'below'),
    /--reports ".*" cannot be used: ".*a-file" is not a folder/,
  ],
  [
    'a folder under /proc',
    '/proc/reservebench-reports',
    /--reports "\/proc\/reservebench-reports" cannot be used: cannot create/,
  ],
  ['nothing', '', /--reports must name a folder, got ""/],
];
const reportsCase = (command: string, folder: string, message: RegExp): Refused => ({
  args: [command, '--reports', folder, ...UNREACHABLE],
  message,
});
const FLAG_VALUES: [string[], RegExp][] = [
  // `clean --dry-run=1` once removed a kept run: the value made the flag false.
  [['clean', '--dry-run=1'], /--dry-run takes no value, got "1"/],
  [['clean', '--dry-run=yes'], /--dry-run takes no value, got "yes"/],
  [['clean', '--dryRun=1'], /--dryRun takes no value, got "1"/],
  [['clean', '--dry-run='], /--dry-run takes no value, got ""/],
  [['bench', '--json=1'], /--json takes no value, got "1"/],
  [['serve', '--log-json=on'], /--log-json takes no value, got "on"/],
  [['list', '--json=no'], /--json takes no value, got "no"/],
  [['compare', 'a.json', 'b.json', '--json=0'], /--json takes no value, got "0"/],
];

/** compare checks --junit once its reports are read: the committed baseline, as BASE and NEW. */
const BASELINE = new URL('../reports/examples/bench/report.json', import.meta.url).pathname;
const JUNIT: Refused[] = [
  { args: ['run', '--junit', '', ...UNREACHABLE], message: /--junit must name a file, got ""/ },
  { args: ['compare', BASELINE, BASELINE, '--junit', ''], message: /--junit must name a file, got ""/ },
  {
    args: ['run', '--junit', scratch, ...UNREACHABLE],
    message: /--junit ".*" cannot be used: it is a folder/,
  },
  {
    args: ['compare', BASELINE, BASELINE, '--junit', join(aFile, 'junit.xml')],
    message: /--junit ".*" cannot be used: ".*a-file" is not a folder/,
  },
  {
    args: ['run', '--junit', 'a.xml', '--junit', 'b.xml', ...UNREACHABLE],
    message: /--junit is given more than once \("a\.xml", "b\.xml"\)/,
  },
];

/**
 * `run --target` asks the chosen contract for its black-box suite (Contract.target): a contract without
 * one (payments, today) is refused, as is a run whose scenarios span two contracts' APIs. No service is
 * asked anything: the port is never reached.
 */
const TARGET_CHOICE: Refused[] = [
  {
    args: ['run', '--target', 'http://127.0.0.1:1', '--scenario', 'payment-duplicates'],
    message: /--target: the payment contract has no black-box suite \(run --target drives: reservation\)/,
  },
  {
    args: ['run', '--target', 'http://127.0.0.1:1', '--scenario', 'contention,payment-duplicates'],
    message: /--target drives one contract's service, but the scenarios named are of reservation and payment/,
  },
];

const REFUSED: Refused[] = [
  ...ODD_VALUES.map(([args, message]) => ({ args: [...args, ...UNREACHABLE], message })),
  ...TRAILING_EMPTY,
  COMMAND_TWICE,
  ...EMPTY_URL,
  NOT_A_URL,
  ...REPORTS.flatMap(([, folder, message]) => ['run', 'bench'].map((c) => reportsCase(c, folder, message))),
  ...FLAG_VALUES.map(([args, message]) => ({ args, message })),
  ...JUNIT,
  ...TARGET_CHOICE,
];

const keyOf = (args: readonly string[], env?: Env) => JSON.stringify([args, env ?? {}]);
const answers = new Map<string, Refusal>();
let leftByTheChild: string[] = ['(not run)'];

beforeAll(async () => {
  const batch = await runRefusals(REFUSED);
  REFUSED.forEach((c, i) => {
    const answer = batch.answers[i];
    if (answer) answers.set(keyOf(c.args, c.env), answer);
  });
  leftByTheChild = batch.leftInTmp;
}, 180_000);

function expectRefusal(run: Refusal | undefined, message: RegExp, what: string): void {
  expect(run, `no answer for ${what}`).toBeDefined();
  expect(run?.stderr).toMatch(message);
  expect(oneLineProblem(run?.stderr ?? ''), run?.stderr).toBe(true);
  expect(run?.stdout).toBe('');
  expect(run?.code).toBe(2);
}

function expectRefused({ args, message, env }: Refused): void {
  expectRefusal(answers.get(keyOf(args, env)), message, keyOf(args, env));
}

describe('odd values are refused, never read as a default', () => {
  it.each(ODD_VALUES)('%j', (args, message) => {
    expectRefused({ args: [...args, ...UNREACHABLE], message });
  });

  it.each(TRAILING_EMPTY)(
    '$args refuses an empty last item of a repeated list option (yargs drops a trailing --strategy=)',
    (refused) => expectRefused(refused),
  );

  it('refuses sql --command given twice instead of running one of them', () => {
    expectRefused(COMMAND_TWICE);
  });

  it.each(EMPTY_URL)(
    '$args: --database-url "" is refused instead of starting the embedded server',
    (refused) => expectRefused(refused),
  );

  it('refuses a --database-url that is not a URL', () => {
    expectRefused(NOT_A_URL);
  });

  it.each(TARGET_CHOICE)('$args: run --target drives one contract that has a black-box suite', (refused) =>
    expectRefused(refused),
  );
});

describe('--reports is made and checked before the run starts', () => {
  it.each(REPORTS)('%s', (_, folder, message) => {
    for (const command of ['run', 'bench']) expectRefused(reportsCase(command, folder, message));
  });

  it('creates a missing folder first, then meets the unreachable database (exit 3)', async () => {
    const folder = join(scratch, 'new', 'reports');
    const run = await runBounded(['run', '--reports', folder, ...UNREACHABLE]);
    expect(run.code).toBe(3);
    expect(existsSync(folder)).toBe(true);
  });
});

describe('--junit names a file whose folder can be written, checked before the run (or compare) starts', () => {
  it.each(JUNIT)('$args', (refused) => expectRefused(refused));
});

describe('a flag given a value is refused, never read as false', () => {
  it.each(FLAG_VALUES)('%j', (args, message) => {
    expectRefused({ args, message });
  });

  it('holds for every flag of every command, as --help lists them', async () => {
    const listing = await helpListing();
    const flags = listing.flatMap(({ command, words, flags }) =>
      flags.map((name) => ({ name, args: [command, ...words.map((w) => `${w}.json`), `--${name}=yes`] })),
    );
    expect(flags.map((f) => f.args)).toContainEqual(['clean', '--dry-run=yes']);
    const batch = await runRefusals(flags);
    flags.forEach(({ name, args }, i) => {
      expectRefusal(batch.answers[i], new RegExp(`--${name} takes no value, got "yes"`), args.join(' '));
    });
    expect(batch.leftInTmp).toEqual([]);
  }, 120_000);
});

describe('refused in one child as by the real command line', () => {
  it('leaves nothing in its temp folder: no embedded server started, nothing written', () => {
    expect(leftByTheChild).toEqual([]);
  });

  // One of each kind: a value, a list, a URL, a reports folder, a flag given a value.
  const SAMPLE: Refused[] = [
    { args: ['run', '--stock', '', ...UNREACHABLE], message: /./ },
    { args: ['run', '--strategy', 'hot-row,', ...UNREACHABLE], message: /./ },
    { args: ['serve', '--database-url', ''], message: /./ },
    reportsCase('run', aFile, /./),
    { args: ['clean', '--dry-run=1'], message: /./ },
  ];
  it.each(SAMPLE)('$args exits 2 with the same line', async ({ args, env }) => {
    const run = await runBounded(args, env ? { env } : {});
    expect(run.timedOut).toBe(false);
    expect(run.leftInTmp).toEqual([]);
    expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual(answers.get(keyOf(args, env)));
  });
});
