/**
 * Which business contract a spec drives, from its steps: each contract step records the contract whose
 * verb wrote it (each contract's SpecVerbs); SQL, WAIT, RESTART and RESUME belong to either. A scenario says which contract it drives,
 * so one spec drives one of them.
 */
import { Errors } from '../errors.ts';
import { isContractStep } from './permutation.ts';
import type { ParsedSpec, SpecStep } from './spec-parser.ts';
import type { SpecVerbs } from './spec-verbs.ts';

const where = (file: string, s: SpecStep) => `${file}:${s.at.line}:${s.at.column}`;

/** The first step of the spec that drives `verbs`' contract, if any. */
export function firstStepOf(spec: ParsedSpec, verbs: SpecVerbs): SpecStep | undefined {
  return spec.sessions
    .flatMap((s) => s.steps)
    .find((s) => isContractStep(s.step) && s.step.contract === verbs.contract);
}

/** The one step's words that name its contract in an error: "<what the step does> (the <id> contract)". */
export function stepDrives(file: string, step: SpecStep, verbs: SpecVerbs): string {
  return `${where(file, step)}: step "${step.step.name}" ${verbs.drives}`;
}

/**
 * The verbs of the contract the spec's steps drive, of those it was parsed for; undefined when none names
 * one (SQL and WAIT only). A spec with steps of two contracts is refused in one line, exit 2.
 */
export function specContract(
  spec: ParsedSpec,
  file: string,
  verbs: readonly SpecVerbs[],
): SpecVerbs | undefined {
  const driven = verbs.flatMap((v) => {
    const first = firstStepOf(spec, v);
    return first ? [{ verbs: v, first }] : [];
  });
  const [one, other] = driven.sort(
    (a, b) => a.first.at.line - b.first.at.line || a.first.at.column - b.first.at.column,
  );
  if (one && other)
    throw Errors.badInput(
      `${stepDrives(file, other.first, other.verbs)}, but step "${one.first.step.name}" (line ${one.first.at.line}) ${one.verbs.drives}: a spec drives one contract`,
    );
  return one?.verbs;
}
