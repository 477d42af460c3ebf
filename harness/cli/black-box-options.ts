/**
 * `run --target` options, checked before any case: each base URL must be http(s), the pairs of
 * --caught-by a scenario and a check of a contract that has a target, and the run's scenarios those of
 * one such contract (Contract.target), which then probes the service (one line, exit 2, when it does not
 * speak the contract's API) and runs them against it.
 */
import type { ScenarioBase } from '../contract/contract.ts';
import type { TargetGiven } from '../contract/contract-target.ts';
import { CATALOGS } from '../contracts/catalogs.ts';
import { Errors } from '../errors.ts';
import type { AnyContract } from '../suite/suite.ts';
import { shown } from './cli-arguments.ts';
import type { RunChoice } from './contract-selection.ts';
import { choice, parsedList, text } from './option-types.ts';

/**
 * Why an option of `run` means nothing with --target: given with it, it is refused rather than ignored
 * (each such option declares `excludes: { target: … }` with this reason).
 */
const NOT_WITH_TARGET = {
  strategy: 'a target is the one system under test',
  isolation: "a target's transactions are its own",
  durability: "a target's commits are its own",
  param: 'a target has no design knobs the suite can turn',
  'database-url': 'a target run has no database of its own',
  postgres: 'a target run has no database of its own',
  keep: 'a target run keeps nothing',
  threads: "a target's clients wait on sockets on the main thread",
  jobs: "a target's cases share its one state, so they run one after the other",
} as const;

/** `excludes` of an option of `run` that a target has no use for. */
export const notWithTarget = (name: keyof typeof NOT_WITH_TARGET) => ({
  excludes: { target: NOT_WITH_TARGET[name] },
});

/** A base URL, checked: http(s), no credentials, query or fragment; without a trailing slash. */
function readBaseUrl(value: string, label: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw Errors.badInput(`${label} must be http:// or https:// base URLs, got ${shown(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw Errors.badInput(`${label} must be http:// or https:// base URLs, got ${shown(value)}`);
  }
  if (url.username || url.password)
    throw Errors.badInput(`${label} ${shown(url.host)}: no credentials in the URL`);
  if (url.search || url.hash)
    throw Errors.badInput(`${label} ${shown(value)}: a base URL has no query or fragment`);
  return url.toString().replace(/\/+$/, '');
}

interface CaughtBy {
  scenario: string;
  check: string;
}

/** The contracts `run --target` can drive a service of, by their catalogs. */
const withTarget = CATALOGS.filter((c) => c.target !== undefined);

/** A scenario:check pair: a scenario of a contract with a target, and one of that target's checks. */
function readCaughtBy(item: string, label: string): CaughtBy {
  const [scenario, check, ...rest] = item.split(':');
  if (!scenario || !check || rest.length > 0) {
    throw Errors.badInput(
      `${label} takes scenario:check pairs (e.g. contention:oversold), got ${shown(item)}`,
    );
  }
  const contract = withTarget.find((c) => c.scenarioIds.includes(scenario));
  if (!contract) {
    const ids = withTarget.flatMap((c) => c.scenarioIds);
    throw Errors.badInput(`${label} ${shown(item)}: unknown scenario; choose from: ${ids.join(', ')}`);
  }
  const checks = contract.target?.checks ?? [];
  if (!checks.includes(check)) {
    throw Errors.badInput(`${label} ${shown(item)}: unknown check; choose from: ${checks.join(', ')}`);
  }
  return { scenario, check };
}

const needsTarget = { needs: [{ anyOf: ['target'] }] };

/** The options of `run --target`, declared once. */
export const TARGET_OPTIONS = {
  target: parsedList(
    `drive a service speaking a contract's HTTP API (${withTarget.map((c) => c.id).join(', ')}: docs/http-api.md) instead of designs: base URLs, one per node`,
    { form: 'URL,…', several: 'list', read: readBaseUrl },
  ),
  'target-setup': text('command run before each case to load its stock (RESERVEBENCH_STOCK, JSON)', {
    form: "'cmd'",
    blank: 'must be a command',
    absent: 'POST /admin/reset',
    ...needsTarget,
  }),
  'target-restart': text('command that restarts node RESERVEBENCH_NODE (1-based)', {
    form: "'cmd'",
    blank: 'must be a command',
    absent: 'scenarios that restart a node are n/a',
    ...needsTarget,
  }),
  'target-expect': choice(
    'hold, or violate: the target is a known-unsafe service, caught by --caught-by',
    ['hold', 'violate'],
    { default: 'hold', ...needsTarget },
  ),
  'caught-by': parsedList(
    'with --target-expect violate: scenario:check pairs that must catch it (contention:oversold)',
    { form: 'SCENARIO:CHECK,…', several: 'list', read: readCaughtBy, ...needsTarget },
  ),
};

/** The target options as resolved (resolve-options.ts), with the timeout of each request. */
export interface TargetArgs {
  target: readonly string[];
  'target-setup': string | undefined;
  'target-restart': string | undefined;
  'target-expect': 'hold' | 'violate';
  'caught-by': readonly CaughtBy[];
  'timeout-ms': number;
}

/**
 * The settings the options give, before anything is asked of the service; undefined without --target. What
 * a target cannot go with, and what needs a target, the declarations refused already.
 */
export function targetArgs(args: TargetArgs, label: (name: string) => string): TargetGiven | undefined {
  const urls = args.target;
  if (urls.length === 0) return undefined;
  const twice = urls.find((u, i) => urls.indexOf(u) !== i);
  if (twice) throw Errors.badInput(`${label('target')} names ${shown(twice)} twice`);
  const expect = args['target-expect'];
  const caughtBy: Record<string, string[]> = {};
  for (const { scenario, check } of args['caught-by'])
    caughtBy[scenario] = [...(caughtBy[scenario] ?? []), check];
  const caught = args['caught-by'].length > 0;
  if (expect === 'violate' && !caught) {
    throw Errors.badInput(
      `${label('target-expect')} violate needs --caught-by scenario:check, the checks that must catch it`,
    );
  }
  if (expect === 'hold' && caught)
    throw Errors.badInput(`${label('caught-by')} goes with --target-expect violate`);
  const setupCommand = args['target-setup'];
  const restart = args['target-restart'];
  return {
    urls: [...urls],
    expect,
    timeoutMs: args['timeout-ms'],
    ...(caught ? { caughtBy } : {}),
    ...(setupCommand !== undefined ? { setupCommand } : {}),
    ...(restart !== undefined ? { restart } : {}),
  };
}

/** The contract `run --target` drives, with its target, and the scenarios it runs against the service. */
export interface TargetChoice {
  contract: AnyContract & Required<Pick<AnyContract, 'target'>>;
  scenarios: ScenarioBase[];
}

/**
 * What `run --target` drives: the scenarios the run named (`--scenario`, `--spec`), all of one contract that
 * has a target; none named, every scenario of the first contract listed that has one. Anything else is
 * refused in one line (exit 2): a service speaks one contract's API, and a contract without a target has
 * no black-box suite.
 */
export function targetChoice(choice: RunChoice, named: boolean, label: string): TargetChoice {
  const chosen = choice.contracts.filter((c) => c.scenarios.length > 0);
  const driven = named ? chosen : chosen.filter((c) => c.contract.target !== undefined).slice(0, 1);
  const [one, ...more] = driven;
  if (!one) throw Errors.badInput(`${label} runs scenarios against a service: name some, not only explore`);
  if (more.length > 0) {
    const ids = driven.map((c) => c.contract.id).join(' and ');
    throw Errors.badInput(`${label} drives one contract's service, but the scenarios named are of ${ids}`);
  }
  const { contract, scenarios } = one;
  if (!contract.target) {
    const others = withTarget.map((c) => c.id).join(', ');
    throw Errors.badInput(
      `${label}: the ${contract.id} contract has no black-box suite (run --target drives: ${others})`,
    );
  }
  return { contract: contract as TargetChoice['contract'], scenarios };
}
