/**
 * The command line as typed, prepared for yargs. yargs reads a value that starts with "-" as more options
 * (`--admission -1:8` became "Unknown argument: 1"), and a flag's value as false (`--json=yes`). A value
 * that cannot be an option name is joined to its option instead, so its check names it; a flag given a
 * value other than true or false is refused. And yargs drops an empty `--name=` at the end of the line
 * from a list given before it (`--strategy hot-row --strategy=` became hot-row alone), so it is passed
 * as `--name ""`, which every option's check sees.
 */
import { Errors } from '../errors.ts';
import { shown } from './cli-arguments.ts';

/** `flags`: every name that takes no value, as typed (`dry-run` and `dryRun`). */
export function attachDashValues(argv: readonly string[], flags: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] ?? '';
    if (token === '--') return [...out, ...argv.slice(i)];
    const flag = /^--([^=]+)=(.*)$/s.exec(token);
    if (flag?.[1] && flags.has(flag[1]) && flag[2] !== 'true' && flag[2] !== 'false') {
      throw Errors.badInput(`--${flag[1]} takes no value, got ${shown(flag[2] ?? '')}`);
    }
    if (flag?.[1] && flag[2] === '' && !flag[1].startsWith('no-')) {
      out.push(`--${flag[1]}`, '');
      continue;
    }
    const next = argv[i + 1];
    const name = /^--([^=]+)$/s.exec(token)?.[1];
    if (
      name &&
      !flags.has(name) &&
      !name.startsWith('no-') &&
      next !== undefined &&
      /^-(?![-A-Za-z])/.test(next)
    ) {
      out.push(`${token}=${next}`);
      i += 1;
    } else {
      out.push(token);
    }
  }
  return out;
}
