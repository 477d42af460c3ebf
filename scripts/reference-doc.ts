/**
 * docs/reference.md, generated from the definitions themselves (the strategies' declarations, every
 * scenario's inputs and expectations evaluated at its fixture inputs, the checks), so the reference a
 * reviewer reads cannot drift from what the harness runs. `npm run docs` rewrites it;
 * test/docs.test.ts fails when the committed file is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { COMMANDS } from '../harness/cli/commands/index.ts';
import { referenceRows } from '../harness/cli/option-help.ts';
import { HttpBlackBox } from '../harness/contracts/reservation/blackbox/http-black-box.ts';
import { missingFor } from '../harness/contracts/reservation/case/applicability.ts';
import { SCENARIOS } from '../harness/contracts/reservation/case/index.ts';
import { paramsFor } from '../harness/contracts/reservation/case/params.ts';
import type { Scenario } from '../harness/contracts/reservation/case/scenario.ts';
import { loadAllBuiltIn } from '../harness/contracts/reservation/designs/registry.ts';
import { markdownCell } from '../harness/report/markdown-table.ts';
import { CHECK_MEANING, CHECKS, type Strategy } from '../strategies/contract.ts';

export const REFERENCE_PATH = fileURLToPath(new URL('../docs/reference.md', import.meta.url));

const OPTIONAL_OPERATIONS = ['confirm', 'release', 'expire', 'backdate', 'disable'] as const;

const SCENARIO_FILES = new URL('../fixtures/reservation/scenarios/', import.meta.url);

/** The scenario file's leading doc comment: why the scenario exists and how it makes its race happen. */
function scenarioRationale(id: string): string {
  const source = readFileSync(new URL(`${id}.ts`, SCENARIO_FILES), 'utf8');
  const comment = /^\/\*\*([\s\S]*?)\*\//.exec(source.trimStart())?.[1] ?? '';
  return comment
    .split('\n')
    .map((line) => line.replace(/^\s*\* ?/, '').trimEnd())
    .join('\n')
    .trim();
}

/** A spec as written in a template literal: the lines after the first carry the file's indentation. */
function dedentSpec(spec: string): string {
  const lines = spec.trim().split('\n');
  const indents = lines
    .slice(1)
    .filter((line) => line.trim() !== '')
    .map((line) => /^ */.exec(line)?.[0].length ?? 0);
  const common = Math.min(...indents, Number.POSITIVE_INFINITY);
  const cut = Number.isFinite(common) ? common : 0;
  return [lines[0], ...lines.slice(1).map((line) => line.slice(cut))].join('\n');
}

function counts(record: Readonly<Record<string, unknown>>): string {
  const entries = Object.entries(record).filter(([, v]) => v !== undefined);
  return entries.length === 0 ? '—' : entries.map(([k, v]) => `${k} ${String(v)}`).join(', ');
}

function pausePoints(strategy: Strategy): string {
  const entries = Object.entries(strategy.pausePoints).filter(([, points]) => (points ?? []).length > 0);
  return entries.length === 0
    ? 'none'
    : entries.map(([op, points]) => `${op}: ${(points ?? []).join(', ')}`).join('; ');
}

function strategySection(strategies: readonly Strategy[]): string[] {
  const lines = [
    '## Strategies',
    '',
    '| id | expect | how it stays correct | pause points | optional operations | caught by (controls) |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const s of strategies) {
    const optional = OPTIONAL_OPERATIONS.filter((op) => typeof s[op] === 'function').join(', ') || 'none';
    const caught = s.caughtBy
      ? Object.entries(s.caughtBy)
          .map(([scenario, checks]) => `${scenario}: ${checks.join(' or ')}`)
          .join('; ')
      : '—';
    lines.push(
      `| \`${markdownCell(s.id)}\` | ${s.expect} | ${markdownCell(s.guarantee)} | ${markdownCell(pausePoints(s))} | ${optional} | ${markdownCell(caught)} |`,
    );
  }
  return lines;
}

/** A target with the reset endpoint and no restart hook: what a service behind `serve --allow-reset` gets. */
const BLACK_BOX = new HttpBlackBox({
  urls: ['http://target'],
  setup: { kind: 'reset' },
  expect: 'hold',
  timeoutMs: 1,
});

/** Whether the scenario runs against a black box, or why not (docs/http-api.md). */
function blackBoxFact(scenario: Scenario): string {
  const reason = BLACK_BOX.notApplicable(scenario) ?? scenario.sitsOut?.(BLACK_BOX.strategy);
  if (reason) return `n/a — ${reason.replace(/^black box: /, '')}`;
  const missing = missingFor(scenario, BLACK_BOX.strategy);
  return missing.length > 0 ? `not covered — ${missing.join('; ')}` : 'runs';
}

function scenarioSection(scenario: Scenario, strategies: readonly Strategy[]): string[] {
  const params = paramsFor(scenario, {});
  const stock = params.stock.map((line) => `${line.sku} × ${line.total}`).join(', ');
  const nodes = params.nodes === 1 ? 'one node' : `${params.nodes} nodes`;
  const expect = scenario.expect;
  const rationale = scenarioRationale(scenario.id);
  const lines = [`### \`${scenario.id}\``, '', `*${scenario.summary}*`, ''];
  if (rationale) lines.push(rationale, '');
  const facts: [string, string][] = [
    ['kind', scenario.kind],
    [
      'inputs',
      scenario.kind === 'clients'
        ? `${params.clients} clients (\`--clients\`) over ${nodes}, stock ${stock} (\`--stock\` sets the first)`
        : `stock ${stock} (part of the definition)${scenario.kind === 'script' ? `, clients over ${nodes}` : ''}`,
    ],
  ];
  if (scenario.requires?.length)
    facts.push([
      'needs pause points',
      scenario.requires.map((need) => `${need.operation} at ${need.anyOf.join(' or ')}`).join('; '),
    ]);
  if (scenario.operations?.length) facts.push(['needs operations', scenario.operations.join(', ')]);
  if (scenario.sessionSettings) facts.push(['session settings', counts(scenario.sessionSettings)]);
  if (scenario.crashesDatabase) facts.push(['database', 'crashed and restarted (n/a with --database-url)']);
  if (expect.outcomes) facts.push(['exact outcomes', counts(expect.outcomes(params))]);
  if (expect.observations) facts.push(['exact observations', counts(expect.observations(params))]);
  if (expect.relations) facts.push(['relations', 'checked (see the scenario file)']);
  if (expect.exercised) facts.push(['exercised', 'checked: a case that did not drive its claim fails']);
  if (expect.blocking)
    facts.push([
      'steps seen blocked',
      Object.entries(expect.blocking)
        .map(([id, steps]) => `${id}: ${steps.length === 0 ? 'none' : steps.join(', ')}`)
        .join('; '),
    ]);
  if (expect.faults?.length) facts.push(['faults caused on purpose', expect.faults.join(', ')]);
  if (expect.boundaryChecks?.length) facts.push(['measured, not judged', expect.boundaryChecks.join(', ')]);
  facts.push(['as a black box (`run --target`)', blackBoxFact(scenario)]);
  const controls = strategies.filter((s) => s.caughtBy?.[scenario.id]);
  if (controls.length > 0)
    facts.push([
      'controls caught here',
      controls.map((s) => `\`${s.id}\` by ${(s.caughtBy?.[scenario.id] ?? []).join(' or ')}`).join('; '),
    ]);
  lines.push(
    '| | |',
    '| --- | --- |',
    ...facts.map(([k, v]) => `| ${markdownCell(k)} | ${markdownCell(v)} |`),
    '',
  );
  if (scenario.kind === 'interleaving') lines.push('```', dedentSpec(scenario.spec), '```', '');
  return lines;
}

/** Every command's options, from their declarations: what `--help` prints and the checks enforce. */
function optionsSection(): string[] {
  const lines = [
    '## Options',
    '',
    "Every command's options, written from their declarations (`harness/cli/commands/`), which `--help`",
    'and the checks read too. A value is checked before anything starts; a bad one, an option without what',
    'it needs or with one it excludes, is refused with one line (exit 2). `run` and `bench` write what their',
    'options resolved to into report.json (`configuration`: every option given, every default in effect),',
    'and `--config FILE` reads it back ([The command line](cli.md#a-runs-configuration---config)). A design',
    "module path (`ID|PATH`) given relative in a config file is read against the file's folder, not the",
    'folder the command runs in; report.json records one given on the command line as an absolute path.',
    '',
  ];
  for (const command of COMMANDS) {
    lines.push(
      `### \`${command.name}\``,
      '',
      `*${command.describe}*`,
      '',
      '| option | takes | default | meaning |',
      '| --- | --- | --- | --- |',
      ...referenceRows(command).map(
        ([option = '', ...rest]) => `| \`${option}\` | ${rest.map(markdownCell).join(' | ')} |`,
      ),
      '',
    );
  }
  return lines;
}

export async function renderReference(): Promise<string> {
  const strategies = (await loadAllBuiltIn()).map(({ strategy }) => strategy);
  return [
    '# Reference',
    '',
    'Generated by `npm run docs` from the strategies, scenarios and checks the harness runs; never edited by',
    "hand (`test/docs.test.ts` fails when it is stale). Expected figures are evaluated at each scenario's",
    'fixture inputs; `--clients` and `--stock` change them for the many-client scenarios.',
    '',
    ...optionsSection(),
    ...strategySection(strategies),
    '',
    '## Checks',
    '',
    '| check | fires when |',
    '| --- | --- |',
    ...CHECKS.map((check) => `| \`${check}\` | ${markdownCell(CHECK_MEANING[check])} |`),
    '',
    '## Scenarios',
    '',
    ...SCENARIOS.flatMap((scenario) => scenarioSection(scenario, strategies)),
  ].join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(REFERENCE_PATH, await renderReference());
  console.error(`wrote ${REFERENCE_PATH}`);
}
