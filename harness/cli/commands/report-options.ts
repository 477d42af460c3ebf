/** The output and database options `run` and `bench` share. */
import { flag, value } from '../command-definition.ts';

export function reportOptions(written: string) {
  return {
    json: flag('print the JSON report on stdout, no tables'),
    'database-url': value('PostgreSQL server to use instead of the embedded one (also DATABASE_URL)'),
    reports: value(`folder for ${written} (default reports)`),
  };
}
