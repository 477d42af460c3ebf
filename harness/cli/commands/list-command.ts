/** `reservebench list`: the strategies (id, expect, how each stays correct) and the scenarios. */

import { EXIT } from '../../errors.ts';
import { loadAllPaymentDesigns } from '../../registry/payment-registry.ts';
import { loadAllBuiltIn } from '../../registry/registry.ts';
import { SCENARIOS } from '../../scenario/index.ts';
import { PAYMENT_SCENARIOS } from '../../scenario/payment/payment-scenarios.ts';
import { defineCommand, flag, type ParsedOf } from '../command-definition.ts';

const OPTIONS = { json: flag('print the strategies and scenarios as JSON') };

export async function listCommand({ json }: ParsedOf<typeof OPTIONS>): Promise<number> {
  const strategies = (await loadAllBuiltIn()).map(({ strategy: s }) => ({
    id: s.id,
    expect: s.expect,
    guarantee: s.guarantee,
    scenarios: s.expect === 'violate' ? Object.keys(s.caughtBy ?? {}) : (s.scenarios ?? 'all'),
    knobs: Object.entries(s.parameters ?? {}).map(([knob, p]) => ({ knob, ...p })),
  }));
  const payments = (await loadAllPaymentDesigns()).map(({ design: d }) => ({
    id: d.id,
    expect: d.expect,
    guarantee: d.guarantee,
    scenarios: d.expect === 'violate' ? Object.keys(d.caughtBy ?? {}) : 'all payment scenarios',
    knobs: Object.entries(d.parameters ?? {}).map(([knob, p]) => ({ knob, ...p })),
  }));
  const scenarios = SCENARIOS.map((s) => ({ id: s.id, summary: s.summary }));
  const paymentScenarios = PAYMENT_SCENARIOS.map((s) => ({ id: s.id, summary: s.summary }));
  if (json) {
    process.stdout.write(
      `${JSON.stringify({ strategies, payments, scenarios, paymentScenarios }, null, 2)}\n`,
    );
    return EXIT.ok;
  }
  const width = Math.max(
    ...[...strategies, ...payments].map((s) => s.id.length),
    ...[...scenarios, ...paymentScenarios].map((s) => s.id.length),
  );
  const withKnobs = (s: (typeof strategies)[number]) => [
    `  ${s.id.padEnd(width)}  ${s.expect.padEnd(7)}  ${s.guarantee}`,
    ...s.knobs.map(
      (k) =>
        `  ${''.padEnd(width)}  knob     --param ${s.id}.${k.knob}=N: ${k.describe}, ${k.min}–${k.max} (default ${k.default})`,
    ),
  ];
  const lines = [
    'strategies (id, expect, how it stays correct):',
    ...strategies.flatMap(withKnobs),
    '',
    'payment designs (id, expect, how it stays correct):',
    ...payments.flatMap(withKnobs),
    '',
    'scenarios:',
    ...scenarios.map((s) => `  ${s.id.padEnd(width)}  ${s.summary}`),
    '',
    'payment scenarios (run against the payment designs):',
    ...paymentScenarios.map((s) => `  ${s.id.padEnd(width)}  ${s.summary}`),
    '',
    'A strategy can also be given as a path to a module: --strategy ./my-strategy.ts',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.ok;
}

export const LIST = defineCommand({
  name: 'list',
  describe: 'list the strategies and scenarios',
  options: OPTIONS,
  run: listCommand,
});
