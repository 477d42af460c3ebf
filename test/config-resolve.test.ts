/**
 * Issue 38, a run's configuration written down, in process: what report.json records of a run's options
 * resolves, read back by `--config`, to the same options whatever mode it was (a burst, the open model, a
 * target); defaults are recorded only where in effect, the database URL never; the command line overrides
 * the file. test/config-file.test.ts has the refusals through the command line and a rerun from a report.
 */

import { afterAll, describe, expect, it } from 'vitest';
import type { CommandDefinition } from '../harness/cli/command-definition.ts';
import { BENCH } from '../harness/cli/commands/bench-command.ts';
import { RUN } from '../harness/cli/commands/run-command.ts';
import { resolveOptions } from '../harness/cli/resolve-options.ts';
import { configFiles, reportWith } from './config-files.ts';

const files = configFiles();
afterAll(() => files.remove());
const { file } = files;

const resolve = (command: CommandDefinition, args: Record<string, unknown>) => resolveOptions(command, args);

describe('a configuration read back resolves to the same options', () => {
  const LINES: [CommandDefinition, Record<string, unknown>][] = [
    [RUN, { strategy: ['hot-row,bucketed'], scenario: ['contention'], clients: '20', jobs: '2' }],
    [RUN, { param: ['bucketed.buckets=4,16'], isolation: ['serializable'], keep: true }],
    [
      RUN,
      { target: ['http://127.0.0.1:9'], 'target-expect': 'violate', 'caught-by': ['contention:oversold'] },
    ],
    [BENCH, { clients: '4,1', admission: '4:8', trials: '2', durability: ['on,off'] }],
    [BENCH, { rate: ['400,200'], arrivals: 'poisson', seed: '7', 'latency-limit': '50' }],
    [BENCH, { burst: ['150'], admission: '2:4', retries: '3', clients: '16' }],
  ];

  it.each(LINES)('%#: %o', (command, args) => {
    const first = resolve(command, args);
    const again = resolve(command, { config: file(reportWith(first.context.configuration)) });
    expect(again.values).toEqual({ ...first.values, config: again.values.config });
    expect(again.context.configuration).toEqual(first.context.configuration);
  });

  it('records every default in effect and leaves out the ones that would not be', () => {
    const burst = resolve(BENCH, { burst: ['150'] }).context.configuration.options;
    expect(burst).toMatchObject({ burst: [150], durability: ['on'], 'timeout-ms': 60_000 });
    // A burst refuses these; their defaults are not its configuration.
    for (const name of ['trials', 'warmup-ms', 'duration-ms', 'arrivals', 'wait-ms']) {
      expect(burst, name).not.toHaveProperty(name);
    }
    const closed = resolve(BENCH, {}).context.configuration.options;
    expect(closed).toMatchObject({ trials: 3, 'warmup-ms': 1000, 'duration-ms': 3000 });
    expect(closed).not.toHaveProperty('arrivals');
    const target = resolve(RUN, { target: ['http://127.0.0.1:9'] }).context.configuration.options;
    expect(target).toMatchObject({ target: ['http://127.0.0.1:9'], 'target-expect': 'hold' });
    for (const name of ['jobs', 'durability', 'keep']) expect(target, name).not.toHaveProperty(name);
  });

  it('never writes the database URL, which may hold a password', () => {
    const { configuration } = resolve(RUN, {
      'database-url': 'postgresql://u:secret@127.0.0.1:1/db',
    }).context;
    expect(JSON.stringify(configuration)).not.toContain('secret');
    expect(configuration.options).not.toHaveProperty('database-url');
  });
});

describe('the command line overrides the file', () => {
  it('option by option, a list replaced whole, a flag turned off with --flag=false', () => {
    const path = file({ strategy: ['hot-row', 'bucketed'], clients: 20, durability: 'off', keep: true });
    const { values, context } = resolve(RUN, { config: path, strategy: ['coalesced'], keep: false });
    expect(values).toMatchObject({ strategy: ['coalesced'], clients: 20, durability: 'off', keep: false });
    expect(context.configuration.options).toMatchObject({ strategy: ['coalesced'], clients: 20 });
    expect(context.label('clients')).toBe(`clients in "${path}"`);
    expect(context.label('strategy')).toBe('--strategy');
  });

  it('takes a configuration on its own, as report.json holds it', () => {
    const path = file({ command: 'bench', options: { clients: [1, 4], trials: 2 } });
    expect(resolve(BENCH, { config: path }).values).toMatchObject({ clients: [1, 4], trials: 2 });
  });
});
