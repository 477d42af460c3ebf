/**
 * A spec file as a scenario (`reservebench run --spec FILE`) of a contract whose designs make their own
 * tables, as every such contract reads one: its sessions and its one permutation, against every design run,
 * each judged as if it claimed to hold (controls too). The design's setup makes its tables, so the spec has
 * no setup of its own; nothing is expected of it but what every case of the contract must hold. A design
 * that declares none of the pause points its steps stop at sits it out (n/a).
 */
import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Errors } from '../errors.ts';
import type { ContractStep, Step } from '../interleaving/permutation.ts';
import type { ParsedSpec } from '../interleaving/spec-parser.ts';

/** How the contract's refusals name its spec and its design, and its own steps of a spec. */
export interface SpecFileContract {
  /** `an order spec`. */
  spec: string;
  /** `the order design`. */
  design: string;
  /** The step as the contract's own (its verbs check that an UNTIL names one of its pause points). */
  stepOf: (step: Step | undefined) => ContractStep | undefined;
}

/** The scenario's fields every such contract's has; one line (exit 2) for a spec it cannot run. */
export function specFileScenario<P extends string>(
  spec: ParsedSpec,
  text: string,
  file: string,
  contract: SpecFileContract,
) {
  if (spec.setup.length > 0 || spec.teardown !== undefined)
    throw Errors.badInput(
      `${file}: ${contract.spec} has no setup or teardown; ${contract.design}'s setup makes its tables`,
    );
  if (spec.permutations.length !== 1)
    throw Errors.badInput(`${file}: a strategy spec lists exactly one permutation (the one it runs)`);
  const held = new Set<P>();
  for (const { step } of spec.sessions.flatMap((s) => s.steps)) {
    const until = contract.stepOf(step)?.until;
    if (until) held.add(until as P);
  }
  const name = basename(file);
  return {
    id: name.replace(/\.spec$/, ''),
    source: pathToFileURL(resolve(file)).href,
    summary: `the spec ${name}`,
    ...(held.size > 0 ? { holdAt: [...held] } : {}),
    spec: () => text,
    everyDesignHolds: true as const,
    expect: {},
  };
}
