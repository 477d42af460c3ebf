/** What `reservebench serve` does (its options: serve-options.ts), imported only when it runs. */

import { Errors } from '../../errors.ts';
import { databaseUrlFrom, onePostgresMajor } from '../cli-arguments.ts';
import type { CommandContext } from '../command-definition.ts';
import { firstContractWith } from '../contract-selection.ts';
import { gateChoiceFrom } from '../gate-options.ts';
import type { ServeArgs } from './serve-options.ts';

export async function serveCommand(args: ServeArgs, context: CommandContext): Promise<number> {
  const databaseUrl = databaseUrlFrom(args['database-url']);
  if (args.schema !== undefined && !databaseUrl) {
    throw Errors.badInput(
      `${context.label('schema')} needs --database-url (or DATABASE_URL): serves share tables only on a server they all reach`,
    );
  }
  const postgres = onePostgresMajor(args.postgres, databaseUrl, 'for a service: it runs on one server');
  const gate = gateChoiceFrom(args, context.label);
  const admission = { ...args.admission, waitMs: args['wait-ms'] };
  const { service } = firstContractWith('service');
  const common = {
    design: args.strategy,
    port: args.port,
    admission,
    gate,
    workMs: args['work-ms'],
    stock: args.stock,
    expireEveryMs: args['expire-every-ms'],
    logJson: args['log-json'],
    allowReset: args['allow-reset'],
    databaseUrl,
    postgres,
  };
  if (args.instances !== undefined) return service.serveInstances({ ...common, instances: args.instances });
  return service.serve({ ...common, schema: args.schema, node: args.node });
}
