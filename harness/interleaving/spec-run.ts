/**
 * Runs a parsed spec as the isolation tester does: every listed permutation (or every interleaving when
 * none is listed), each with the spec's setup before and teardown after, and writes the tester's output.
 * Unlike the tester, each permutation gets fresh connections, so nothing a session SETs leaks into the
 * next permutation.
 */
import { allPermutations } from './all-permutations.ts';
import { runPermutation } from './engine.ts';
import type { Permutation, PermutationFrame, Step } from './permutation.ts';
import { formatEvent, permutationHeader, specHeader } from './spec-output.ts';
import type { ParsedSpec } from './spec-parser.ts';

export function permutationsOf(spec: ParsedSpec): Iterable<Permutation> {
  return spec.permutations.length > 0
    ? spec.permutations
    : allPermutations(spec.sessions.map((s) => ({ name: s.name, steps: s.steps.map((t) => t.step) })));
}

export function frameOf(spec: ParsedSpec): PermutationFrame {
  const perSession = (pick: (s: ParsedSpec['sessions'][number]) => string | undefined) =>
    Object.fromEntries(
      spec.sessions.flatMap((s) => {
        const sql = pick(s);
        return sql === undefined ? [] : [[s.name, sql] as const];
      }),
    );
  return {
    setup: spec.setup,
    ...(spec.teardown === undefined ? {} : { teardown: spec.teardown }),
    sessionSetup: perSession((s) => s.setup),
    sessionTeardown: perSession((s) => s.teardown),
  };
}

export interface SpecRunOptions {
  connectionString: string;
  timeoutMs: number;
  /** Receives the output as it is produced. */
  write(text: string): void;
  /** Receives lines the tester writes to stderr (a failed teardown). */
  warn(line: string): void;
}

export async function runSpec(spec: ParsedSpec, options: SpecRunOptions): Promise<void> {
  const texts = new Map(spec.sessions.flatMap((s) => s.steps.map((t) => [t.step.name, t.text] as const)));
  const textOf = (step: Step) => texts.get(step.name) ?? '';
  const frame = frameOf(spec);
  options.write(specHeader(spec.sessions.length));
  for (const permutation of permutationsOf(spec)) {
    options.write(permutationHeader(permutation));
    await runPermutation(permutation, {
      connectionString: options.connectionString,
      timeoutMs: options.timeoutMs,
      frame,
      onEvent: (event) => {
        if (event.kind === 'teardown-failed') options.warn(`${event.where} failed: ${event.error}`);
        else options.write(formatEvent(event, textOf));
      },
    });
  }
}
