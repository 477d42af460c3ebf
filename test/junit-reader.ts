/** JUnit XML read back as a JUnit reader reads it (fast-xml-parser), with its counts checked. */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { expect } from 'vitest';

type Attributes = Record<string, string>;
type Outcome = Attributes & { '#text'?: string };
interface ParsedCase {
  name: string;
  classname: string;
  time?: string;
  failure?: Outcome;
  error?: Outcome;
  skipped?: Attributes;
}
type ParsedSuite = Attributes & { testcase: ParsedCase[] };
interface Parsed {
  testsuites: Attributes & { testsuite: ParsedSuite[] };
}

/** The XML as a JUnit reader sees it: attributes by name, suites and cases always lists, entities decoded. */
export function parseJunit(xml: string): Parsed {
  expect(XMLValidator.validate(xml)).toBe(true);
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    parseAttributeValue: false,
    parseTagValue: false,
    processEntities: true,
    htmlEntities: true,
    isArray: (name) => name === 'testsuite' || name === 'testcase',
  });
  return parser.parse(xml) as Parsed;
}

/** The counts the elements themselves show, and the counts the attributes claim, for each suite and all. */
export function countsOf(parsed: Parsed) {
  const suites = parsed.testsuites.testsuite;
  const cases = suites.flatMap((s) => s.testcase);
  const counted = (list: readonly ParsedCase[]) => ({
    tests: list.length,
    failures: list.filter((c) => c.failure !== undefined).length,
    errors: list.filter((c) => c.error !== undefined).length,
    skipped: list.filter((c) => c.skipped !== undefined).length,
  });
  const claimed = (a: Attributes) => ({
    tests: Number(a.tests),
    failures: Number(a.failures),
    errors: Number(a.errors),
    skipped: Number(a.skipped),
  });
  for (const suite of suites) expect(claimed(suite), suite.name).toEqual(counted(suite.testcase));
  expect(claimed(parsed.testsuites)).toEqual(counted(cases));
  return { ...counted(cases), cases };
}
