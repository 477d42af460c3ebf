/**
 * What the command line tells of a contract before it loads it: the names its help lists and its options
 * check (designs, scenarios, target checks, the service's schema), as plain data. A contract's object
 * (Contract) imports its designs, scenarios and drivers — PostgreSQL's client among them — which a start
 * that ends at `--help` or a refused option has no use for. Each contract's catalog sits in its folder
 * (harness/contracts/<id>/catalog.ts), listed in harness/contracts/catalogs.ts in CONTRACTS' order;
 * test/contract-catalog.test.ts holds each to its contract.
 */
export interface ContractCatalog {
  /** The contract's id (Contract.id). */
  readonly id: string;
  /** Its built-in designs by id, each the module file its registry loads, in the order they are listed. */
  readonly builtInDesigns: Readonly<Record<string, string>>;
  /** Its scenarios' ids, as Contract.scenarios lists them. */
  readonly scenarioIds: readonly string[];
  /** Its `run --target` (Contract.target): the checks `--caught-by` may name. Absent: it has none. */
  readonly target?: { readonly checks: readonly string[] };
  /** Its `serve` (Contract.service): what `--schema` must match. Absent: it has none. */
  readonly service?: { readonly schemaName: RegExp };
}
