/**
 * The suite where a team's design lives: `npm pack` of this checkout installed into an empty project with
 * no network but the npm cache (`npm ci --offline`, from a lockfile made of this one's runtime entries), then
 * `reservebench init` writes a design started from a built-in and a CI workflow, the design type-checks
 * against the package's types (and a design missing members does not), and `npx reservebench run` judges it
 * through one scenario against the shared test server, and explores it (the explorer's fast-check is a runtime
 * dependency). One pack and one install serve the whole file.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const serverUrl = inject('serverUrl');
const ROOT = new URL('..', import.meta.url).pathname;
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const REGISTRY = 'https://registry.npmjs.org/';

const scratch = mkdtempSync(join(tmpdir(), 'reservebench-package-'));
const project = join(scratch, 'team');

interface LockEntry {
  name?: string;
  version: string;
  resolved?: string;
  dev?: boolean;
  devOptional?: boolean;
  optional?: boolean;
  [more: string]: unknown;
}

/**
 * The team's lockfile: the package from its tarball, and this checkout's runtime entries, each with the
 * tarball address npm keeps in its cache (this lockfile omits them), so that `npm ci --offline` needs no
 * registry document.
 */
function teamLockfile(tarball: string): object {
  const own = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const packages: Record<string, unknown> = {
    '': { name: 'team', version: '1.0.0', dependencies: { reservebench: tarball } },
    'node_modules/reservebench': {
      version: own.version,
      resolved: tarball,
      dependencies: own.dependencies,
      optionalDependencies: own.optionalDependencies,
      bin: own.bin,
    },
  };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.dev) continue;
    const { devOptional, ...kept } = entry;
    const name = entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    packages[path] = {
      ...kept,
      ...(devOptional ? { optional: true } : {}),
      resolved: entry.resolved ?? `${REGISTRY}${name}/-/${name.split('/').at(-1)}-${entry.version}.tgz`,
    };
  }
  return { name: 'team', version: '1.0.0', lockfileVersion: 3, requires: true, packages };
}

const npx = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  spawnSync('npx', ['--offline', ...args], {
    cwd: project,
    env: { ...process.env, DATABASE_URL: '', ...env },
    encoding: 'utf8',
    timeout: 240_000,
  });

const typecheck = () => spawnSync(process.execPath, [TSC, '-p', project], { encoding: 'utf8' });

beforeAll(() => {
  execFileSync('npm', ['pack', '--pack-destination', scratch, '--silent'], { cwd: ROOT, stdio: 'pipe' });
  const tarball = `file:../${readdirSync(scratch).find((f) => f.endsWith('.tgz'))}`;
  execFileSync('mkdir', [project]);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({
      name: 'team',
      version: '1.0.0',
      private: true,
      dependencies: { reservebench: tarball },
    }),
  );
  writeFileSync(join(project, 'package-lock.json'), JSON.stringify(teamLockfile(tarball)));
  // As docs/ci.md says: the design runs through tsx, so the project's TypeScript only checks it.
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'nodenext',
        target: 'es2023',
        strict: true,
        noEmit: true,
        allowImportingTsExtensions: true,
        skipLibCheck: true,
      },
      include: ['*.ts'],
    }),
  );
  execFileSync('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: project,
    stdio: 'pipe',
  });
}, 300_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the package, installed into an empty project', () => {
  it('init writes a design from a built-in, with its header to fill in, and a workflow that gates on it', () => {
    const init = npx(['reservebench', 'init']);
    expect(init.status, init.stderr).toBe(0);
    const design = readFileSync(join(project, 'my-design.ts'), 'utf8');
    expect(design).toMatch(/^\/\*\*\n \* my-design — started from reservebench's built-in hot-row/);
    expect(design).toContain("from 'reservebench'");
    expect(design).toContain("id: 'my-design'");
    const workflow = readFileSync(join(project, '.github/workflows/reservebench.yml'), 'utf8');
    expect(workflow).toContain('npx reservebench run --strategy ./my-design.ts --junit reports/junit.xml');
    expect(workflow).toContain('reports/latest/report.html');
    const again = npx(['reservebench', 'init']);
    expect([again.status, again.stderr]).toEqual([
      2,
      'reservebench: "my-design.ts" exists; --force overwrites it\n',
    ]);
  });

  it("type-checks the design against the package's types, and refuses one that misses members", () => {
    const checked = typecheck();
    expect(checked.status, checked.stdout).toBe(0);
    writeFileSync(
      join(project, 'half-a-design.ts'),
      "import type { Strategy } from 'reservebench';\nexport default { id: 'half' } satisfies Partial<Strategy> as Strategy;\nexport const missing: Strategy = { id: 'x' };\n",
    );
    const refused = typecheck();
    rmSync(join(project, 'half-a-design.ts'));
    expect(refused.status).not.toBe(0);
    expect(refused.stdout).toMatch(
      /half-a-design\.ts.*is missing the following properties from type 'Strategy'/,
    );
  });

  it('runs the design through a built-in scenario, judged as the built-in one is', () => {
    const run = npx(
      ['reservebench', 'run', '--strategy', './my-design.ts', '--scenario', 'contention', '--json'],
      {
        DATABASE_URL: serverUrl,
      },
    );
    expect(run.status, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.cases).toHaveLength(1);
    expect(report.cases[0]).toMatchObject({
      id: 'contention/my-design',
      status: 'pass',
      outcomes: { HELD: 40, SOLD_OUT: 110 },
      invariants: { oversold: 0, drift: 0 },
    });
  });

  it('explores the design with only the runtime dependencies installed (fast-check among them)', () => {
    const explored = npx(
      [
        'reservebench',
        'explore',
        '--strategy',
        './my-design.ts',
        '--budget',
        '3',
        '--random',
        '3',
        '--replays',
        '1',
      ],
      { DATABASE_URL: serverUrl },
    );
    expect(explored.status, explored.stderr).toBe(0);
    // The case line wraps at the terminal's width: read it as one line.
    expect(explored.stdout.replace(/\s+/g, ' ')).toMatch(/my-design.* 3 random, seed 2026/);
  });
});
