/**
 * What a run's options resolved to (`configuration` in report.json of `run` and `bench`), defined once with
 * zod: every option given, on the command line or in a `--config` file, and every default in effect, by
 * the options' names. `reservebench run --config report.json` runs it again (docs/cli.md).
 */
import { z } from 'zod';

const item = z.union([z.number(), z.string()]);

export const configurationSchema = z
  .strictObject({
    command: z.string().describe('the command that ran: run or bench'),
    options: z
      .record(z.string(), z.union([z.boolean(), item, z.array(item)]))
      .describe(
        "each option by its name (`clients`, `timeout-ms`): a flag's true or false, a number, a text, or a list of them; an option not here was not given and has no default in effect (docs/reference.md#options). --database-url is never written (a password may be in it)",
      ),
  })
  .describe(
    'What the options resolved to: `reservebench <command> --config report.json` runs the same configuration again, the options given beside it overriding it; absent in reports written before it was recorded',
  );

export type Configuration = z.infer<typeof configurationSchema>;
export type ConfigurationValue = Configuration['options'][string];
