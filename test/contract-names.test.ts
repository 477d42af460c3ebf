/**
 * One harness, many contracts: no file of the shared harness names a contract. A contract's knowledge lives
 * in its own folder (harness/contracts/<id>/), and the shared harness reaches a contract only through the
 * Contract interface and the registries (harness/contracts/index.ts, catalogs.ts). So, outside those, a file must neither
 * import from a contract's folder nor name a registered contract — its id as a word (`reservation`,
 * `payments`, `ReservationStatus`), a path into its folder, or "the <id> contract". And no contract's folder
 * imports another's: what two contracts share is the shared harness's, and a contract that truly needs
 * another (the payment contract's order flow drives a reservation strategy) says so in one file. Nor does a
 * shared file reach the reservation contract unnamed, through the design interface its designs implement
 * (strategies/contract.ts, which also holds the design vocabulary every contract shares).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTRACTS } from '../harness/contracts/index.ts';

const ROOT = new URL('..', import.meta.url).pathname;

/**
 * The one file through which a contract's folder imports another contract's, each with why: a contract
 * that depends on another says so there, not in a silent import anywhere in its folder.
 */
const DEPENDENCIES: Readonly<Record<string, string>> = {
  'harness/contracts/payment/depends-on-reservation.ts':
    "an order flow reserves and confirms with a reservation strategy before it pays: it loads, crashes and reads back the strategy's orders",
};

/**
 * The reservation contract's own names in strategies/contract.ts: what its clients send and are answered,
 * its statuses, checks and audit, its operations, and its design interface. The rest of that file is the
 * vocabulary every contract's designs share (pause points, isolation levels, capabilities, expectations,
 * node identity, a session's context, knobs), which a shared file may import.
 */
const DESIGN_INTERFACE = 'strategies/contract.ts';
const RESERVATION_NAMES = [
  'OUTCOMES',
  'Outcome',
  'STATUSES',
  'ReservationStatus',
  'ReserveRequest',
  'ReserveResult',
  'PAUSING_OPERATIONS',
  'PausingOperation',
  'PausePoints',
  'CHECKS',
  'CheckName',
  'CHECK_MEANING',
  'StockLine',
  'SkuCounts',
  'StrategyAudit',
  'BookFigures',
  'Strategy',
];

/**
 * Shared files that still import the reservation contract's names from its design interface, each with why
 * it cannot do otherwise yet: the way out is to move the knowledge into the contract's folder or behind
 * Contract. A new entry needs a reason as good.
 */
const DESIGN_IMPORTS_ALLOWED: Readonly<Record<string, string>> = {
  'harness/registry/strategy-module.ts':
    "the reservation design module's zod schema sits beside the schema pieces every contract's module schema uses (pause points, parameters, answers checked): splitting them is the registry's own work",
  'harness/bench/burst-share.ts':
    '`bench --burst` drives the first contract listed (CONTRACTS[0]) as a reservation Strategy: a Contract bench member for bursts would take it',
};

/** The reservation names `file` imports from the design interface, one line each (`file: name`). */
function designImports(file: string, text: string): string[] {
  const statement = /(?:import|export)\s+(?:type\s+)?\{([^}]*)\}\s*from\s*['"](\.{1,2}\/[^'"]+)['"]/g;
  return [...text.matchAll(statement)]
    .filter((m) => normalize(join(dirname(file), m[2] ?? '')) === DESIGN_INTERFACE)
    .flatMap((m) =>
      (m[1] ?? '')
        .split(',')
        .map(
          (name) =>
            name
              .replace(/^\s*type\s+/, '')
              .split(/\s+as\s+/)[0]
              ?.trim() ?? '',
        )
        .filter((name) => RESERVATION_NAMES.includes(name))
        .map((name) => `${file}: ${name}`),
    );
}

/**
 * Ids that are also ordinary words in the shared harness ("the order a run drives them"): for these only
 * imports, paths into the folder and "the <id> contract" count as naming the contract.
 */
const ORDINARY_WORDS = new Set(['order']);

function harnessFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return harnessFiles(path);
    return /\.(ts|js)$/.test(name) ? [path] : [];
  });
}

/** The registries, which list every contract by name: its object (index.ts) and its catalog. */
const REGISTRIES = ['harness/contracts/index.ts', 'harness/contracts/catalogs.ts'];

const isShared = (file: string) => !/^harness\/contracts\/[^/]+\//.test(file) && !REGISTRIES.includes(file);

const IMPORT = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

/** The contract folder a harness file sits in (`payment` for harness/contracts/payment/…); none: shared. */
const contractFolderOf = (file: string) => /^harness\/contracts\/([^/]+)\//.exec(file)?.[1];

/** The imports of `file` (a contract's) into another contract's folder, one line each (`file → target`). */
function crossImports(file: string, text: string): string[] {
  const own = contractFolderOf(file);
  return [...text.matchAll(IMPORT)]
    .map((m) => normalize(join(dirname(file), m[1] ?? '')))
    .filter((target) => {
      const folder = contractFolderOf(target);
      return folder !== undefined && folder !== own;
    })
    .map((target) => `${file} → ${target}`);
}

/** The ways `text` names contract `id`, one line each (`file:line: what`); none: it names none. */
function namesOf(file: string, text: string, id: string): string[] {
  const cap = id.charAt(0).toUpperCase() + id.slice(1);
  const patterns: RegExp[] = [
    new RegExp(`contracts/${id}/`),
    new RegExp(`\\b${id} contract\\b`, 'i'),
    ...(ORDINARY_WORDS.has(id)
      ? []
      : [
          new RegExp(`\\b${id}s?\\b`, 'i'),
          new RegExp(`${cap}s?(?![a-z])`),
          new RegExp(`${id.toUpperCase()}S?_`),
        ]),
  ];
  return text.split('\n').flatMap((line, i) => {
    const hit = patterns.map((p) => p.exec(line)?.[0]).find((m) => m !== undefined);
    return hit === undefined ? [] : [`${file}:${i + 1}: ${hit}`];
  });
}

describe('contract names', () => {
  const ids = CONTRACTS.map((c) => c.id);
  const shared = harnessFiles('harness').filter(isShared);

  it('finds the shared harness, and every registered contract folder beside it', () => {
    expect(shared.length).toBeGreaterThan(100);
    for (const id of ids) expect(statSync(join(ROOT, 'harness', 'contracts', id)).isDirectory()).toBe(true);
  });

  it('names no registered contract, nor imports a contract folder, outside the contracts’ own folders', () => {
    const named = shared.flatMap((file) => {
      const text = readFileSync(join(ROOT, file), 'utf8');
      return ids.flatMap((id) => namesOf(file, text, id));
    });
    expect(named).toEqual([]);
  });

  it("imports none of the reservation contract's names from its design interface, but for the allowed", () => {
    const imported = shared
      .filter((file) => !(file in DESIGN_IMPORTS_ALLOWED))
      .flatMap((file) => designImports(file, readFileSync(join(ROOT, file), 'utf8')));
    expect(imported).toEqual([]);
    const exported = readFileSync(join(ROOT, DESIGN_INTERFACE), 'utf8');
    for (const name of RESERVATION_NAMES)
      expect(exported, name).toMatch(new RegExp(`export (const|type|interface) ${name}\\b`));
  });

  it('keeps the allow-list short and true: each entry exists and still imports a reservation name', () => {
    for (const [file, reason] of Object.entries(DESIGN_IMPORTS_ALLOWED)) {
      expect(reason.length, file).toBeGreaterThan(40);
      expect(
        designImports(file, readFileSync(join(ROOT, file), 'utf8')),
        `${file} imports none: drop it`,
      ).not.toEqual([]);
    }
  });

  it("catches a shared file importing the reservation contract's names (the check can fail)", () => {
    const file = 'harness/driver/a.ts';
    expect(
      designImports(
        file,
        "import type { PausePoint, ReserveRequest } from '../../strategies/contract.ts';\n" +
          "import { type Strategy as S, CHECKS } from '../../strategies/contract.ts';",
      ),
    ).toEqual([
      'harness/driver/a.ts: ReserveRequest',
      'harness/driver/a.ts: Strategy',
      'harness/driver/a.ts: CHECKS',
    ]);
    expect(designImports(file, "export type { Outcome } from '../../strategies/contract.ts';")).toEqual([
      'harness/driver/a.ts: Outcome',
    ]);
    // The shared vocabulary, and another contract's interface, are not the reservation contract's.
    expect(
      designImports(
        file,
        "import type { PausePoint, NodeIdentity } from '../../strategies/contract.ts';\n" +
          "import type { PaymentDesign } from '../../strategies/payment/contract.ts';",
      ),
    ).toEqual([]);
  });

  it('imports no contract folder from another, but through the one file that declares the dependency', () => {
    const contractFiles = harnessFiles('harness/contracts').filter((f) => contractFolderOf(f) !== undefined);
    expect(contractFiles.length).toBeGreaterThan(100);
    const crossing = contractFiles
      .filter((file) => !(file in DEPENDENCIES))
      .flatMap((file) => crossImports(file, readFileSync(join(ROOT, file), 'utf8')));
    expect(crossing).toEqual([]);
    for (const [file, reason] of Object.entries(DEPENDENCIES)) {
      expect(reason.length, file).toBeGreaterThan(40);
      expect(
        crossImports(file, readFileSync(join(ROOT, file), 'utf8')),
        `${file} imports none: drop it`,
      ).not.toEqual([]);
    }
  });

  it('catches an import across two contract folders (the check can fail)', () => {
    const file = 'harness/contracts/widget/case/a.ts';
    expect(crossImports(file, "import { a } from '../../gadget/verdict/b.ts';")).toEqual([
      'harness/contracts/widget/case/a.ts → harness/contracts/gadget/verdict/b.ts',
    ]);
    expect(
      crossImports(file, "export { a } from '../../gadget/b.ts';\nawait import('../../gadget/c.ts');"),
    ).toEqual([
      'harness/contracts/widget/case/a.ts → harness/contracts/gadget/b.ts',
      'harness/contracts/widget/case/a.ts → harness/contracts/gadget/c.ts',
    ]);
    expect(
      crossImports(file, "import { a } from '../verdict/b.ts';\nimport { c } from '../../../history/c.ts';"),
    ).toEqual([]);
  });

  it('catches each way of naming a contract (the check can fail)', () => {
    const file = 'harness/x/y.ts';
    expect(namesOf(file, "import { a } from '../contracts/widget/a.ts';", 'widget')).toEqual([
      'harness/x/y.ts:1: contracts/widget/',
    ]);
    expect(namesOf(file, '// one widget per key\n// many Widgets', 'widget')).toEqual([
      'harness/x/y.ts:1: widget',
      'harness/x/y.ts:2: Widgets',
    ]);
    expect(namesOf(file, 'type S = WidgetStatus;\nstartWidgetService();\nWIDGET_BENCH', 'widget')).toEqual([
      'harness/x/y.ts:1: Widget',
      'harness/x/y.ts:2: Widget',
      'harness/x/y.ts:3: WIDGET_',
    ]);
    expect(namesOf(file, '// in the order a run drives them', 'order')).toEqual([]);
    expect(namesOf(file, '// the order contract', 'order')).toEqual(['harness/x/y.ts:1: order contract']);
    expect(namesOf(file, '// widgetry and subwidgets', 'widget')).toEqual([]);
  });
});
