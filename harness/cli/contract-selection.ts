/**
 * Which contracts a run drives, with which designs and scenarios, from `--strategy`, `--scenario` and
 * `--spec`: a design id is its contract's; a module path goes to the contract its default export declares
 * (`contract`; none: the first contract listed), a file a contract reads as a design (a
 * design in SQL) to that contract; a scenario id is its contract's; a spec file goes to the contract its
 * steps drive. Nothing named runs every built-in design and scenario of every contract; naming designs or
 * scenarios of only some contracts runs only those.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type ScenarioBase, scenariosOfDefaultRun } from '../contract/contract.ts';
import { CONTRACTS } from '../contracts/index.ts';
import { Errors, HarnessError, oneLine } from '../errors.ts';
import { firstStepOf, specContract, stepDrives } from '../interleaving/spec-contract.ts';
import { parseSpec } from '../interleaving/spec-parser.ts';
import { declaredContract, importModulePath } from '../registry/design-module.ts';
import { looksLikePath } from '../registry/looks-like-path.ts';
import type { AnyContract } from '../suite/suite.ts';
import { shown } from './cli-arguments.ts';

/**
 * The first contract listed (CONTRACTS' order) that brings `member`, for a command only some contracts
 * have (`init`: a starter, `serve`: an HTTP service).
 */
export function firstContractWith<K extends 'starter' | 'service'>(
  member: K,
): AnyContract & Required<Pick<AnyContract, K>> {
  const contract = (CONTRACTS as readonly AnyContract[]).find((c) => c[member] !== undefined);
  if (!contract) throw new Error(`no contract listed has a ${member}`);
  return contract as AnyContract & Required<Pick<AnyContract, K>>;
}

/** Every contract's verbs, as a spec given to `run --spec` (or `spec`) is parsed. */
export const SPEC_VERBS = CONTRACTS.map((c) => c.verbs);

/** One contract's share of what the command line named. */
export interface ContractChoice {
  contract: AnyContract;
  /** The designs named (ids or paths); none: every built-in design of the contract. */
  designNames: string[];
  scenarios: ScenarioBase[];
}

export interface RunChoice {
  contracts: ContractChoice[];
  /** `--scenario explore`, or nothing named: the designs of a contract with an explorer are explored. */
  explore: boolean;
}

/** A module path's contract: the one its default export declares, else the first contract listed. */
async function contractOfModule(name: string): Promise<AnyContract> {
  const file = resolve(name);
  // A missing file is the first contract's to refuse, in its own words.
  if (!existsSync(file)) return CONTRACTS[0];
  const declared = declaredContract(await importModulePath(name, pathToFileURL(file).href));
  if (declared === undefined) return CONTRACTS[0];
  const contract = CONTRACTS.find((c) => c.id === declared);
  if (!contract)
    throw Errors.badInput(
      `${name} declares contract '${declared}'; the contracts are: ${CONTRACTS.map((c) => c.id).join(', ')}`,
    );
  return contract;
}

/**
 * `work` on designs named under `label` (how a message names `strategy`): when a `--config` file named them
 * (`strategy in "c.json"`), a refusal names that file too, for a user who never typed the path.
 */
export async function namedIn<T>(label: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error: unknown) {
    if (label.startsWith('--') || !(error instanceof HarnessError)) throw error;
    throw new HarnessError(`${label}: ${error.message}`, error.exitCode);
  }
}

/** The contract a `--strategy` name belongs to (`label`: where it was named, see namedIn). */
export function contractOfDesign(name: string, label = '--strategy'): Promise<AnyContract> {
  return namedIn(label, () => contractOf(name));
}

async function contractOf(name: string): Promise<AnyContract> {
  const byId = CONTRACTS.find((c) => c.designs.builtInIds.includes(name));
  if (byId) return byId;
  if (!looksLikePath(name)) {
    const ids = CONTRACTS.flatMap((c) => c.designs.builtInIds);
    throw Errors.badInput(`unknown strategy "${name}"; choose one of: ${ids.join(', ')}, or a module path`);
  }
  const reads = CONTRACTS.find((c) => 'readsFile' in c.designs && c.designs.readsFile(name));
  return reads ?? contractOfModule(name);
}

/** The contract a `--scenario` id belongs to ('explore' is none: it names the explorer). */
function contractOfScenario(id: string): AnyContract {
  const contract = CONTRACTS.find((c) => c.scenarios.all.some((s: ScenarioBase) => s.id === id));
  if (contract) return contract;
  const ids = CONTRACTS.flatMap((c) => c.scenarios.all.map((s: ScenarioBase) => s.id));
  throw Errors.badInput(`unknown scenario "${id}"; choose one of: ${ids.join(', ')}`);
}

function readSpec(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error: unknown) {
    throw Errors.badInput(`cannot read --spec ${shown(file)}: ${oneLine(error)}`);
  }
}

/**
 * A `--spec` file as a scenario of the contract its steps drive (one of SQL and WAIT only: the first
 * contract's), refused in one line when `--strategy` names designs but none of that contract.
 */
function specScenarioOf(file: string, designContracts: ReadonlySet<AnyContract> | undefined) {
  const text = readSpec(file);
  const spec = parseSpec(text, file, SPEC_VERBS);
  const verbs = specContract(spec, file, SPEC_VERBS);
  const contract = CONTRACTS.find((c) => c.verbs === verbs) ?? CONTRACTS[0];
  const first = verbs ? firstStepOf(spec, verbs) : undefined;
  if (designContracts && !designContracts.has(contract) && first && verbs)
    throw Errors.badInput(
      `${stepDrives(file, first, verbs)}, but --strategy names no design of the ${contract.id} contract (${contract.designs.builtInIds.join(', ')}, or a module path)`,
    );
  return { contract, scenario: contract.scenarios.specFile(text, file) as ScenarioBase };
}

/**
 * `withClusters`: the run was given `--cluster`; nothing named then runs the cluster scenarios too (each
 * brings up a cluster), which the default run leaves out.
 */
export async function chooseContracts(
  strategyNames: readonly string[],
  scenarioIds: readonly string[],
  specFiles: readonly string[],
  withClusters = false,
  strategyLabel = '--strategy',
): Promise<RunChoice> {
  const designsOf = new Map<AnyContract, string[]>();
  for (const name of strategyNames) {
    const contract = await contractOfDesign(name, strategyLabel);
    designsOf.set(contract, [...(designsOf.get(contract) ?? []), name]);
  }
  const named = strategyNames.length > 0 ? new Set(designsOf.keys()) : undefined;
  const specs = specFiles.map((file) => specScenarioOf(file, named));
  const ids = scenarioIds.filter((id) => id !== 'explore');
  const scenariosOf = new Map<AnyContract, ScenarioBase[]>();
  for (const id of ids) {
    const contract = contractOfScenario(id);
    const scenario = contract.scenarios.all.find((s: ScenarioBase) => s.id === id);
    scenariosOf.set(contract, [...(scenariosOf.get(contract) ?? []), scenario]);
  }
  for (const { contract, scenario } of specs)
    scenariosOf.set(contract, [...(scenariosOf.get(contract) ?? []), scenario]);
  const everything = scenarioIds.length === 0 && specs.length === 0;
  const explore = scenarioIds.includes('explore') || everything;
  const contracts = CONTRACTS.flatMap((contract): ContractChoice[] => {
    if (named && !named.has(contract)) return [];
    const all = scenariosOfDefaultRun<ScenarioBase>(contract.scenarios, withClusters);
    const scenarios = everything ? all : (scenariosOf.get(contract) ?? []);
    const explored = explore && contract.explore !== undefined;
    if (scenarios.length === 0 && !explored) return [];
    return [{ contract, designNames: designsOf.get(contract) ?? [], scenarios }];
  });
  return { contracts, explore };
}

/**
 * A contract's designs by name (ids or paths), each once; none named: every built-in design of it.
 * `label`: where they were named (see namedIn).
 */
export async function loadDesigns(
  contract: AnyContract,
  names: readonly string[],
  label = '--strategy',
): Promise<unknown[]> {
  const refs: unknown[] = await namedIn(label, () =>
    Promise.all(
      (names.length > 0 ? names : contract.designs.builtInIds).map((name: string) =>
        contract.designs.load(name),
      ),
    ),
  );
  const ids = refs.map((ref) => contract.designs.info(ref).design.id);
  const dup = ids.find((id, i) => ids.indexOf(id) !== i);
  if (dup) throw Errors.badInput(`strategy id "${dup}" is given twice`);
  return refs;
}
