/** The output and database options `run` and `bench` share, and the JUnit file of `run` and `compare`. */
import { flag, value } from '../command-definition.ts';

export function reportOptions(written: string) {
  return {
    json: flag('print the JSON report on stdout, no tables'),
    'database-url': value('PostgreSQL server to use instead of the embedded one (also DATABASE_URL)'),
    reports: value(`folder for ${written} (default reports)`),
  };
}

/** `--junit FILE` of `run` and `compare`: what one test case is, in the command's own words. */
export function junitOption(testCase: string) {
  return {
    junit: value(`write the results as JUnit XML to FILE, ${testCase}; written whatever the verdict`),
  };
}
