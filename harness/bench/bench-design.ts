/**
 * A design's bench series (BenchDesign): what its contract's bench makes of it (ContractBench.design) beside
 * the id and module URL its contract's catalog holds of it, so a contract's bench says only what its clients
 * send and count, never which design it runs.
 */
import type { BenchDesign } from '../contract/bench-series.ts';
import type { Contract, ContractBench } from '../contract/contract.ts';

/** A contract that has a bench series. */
type BenchedContract<R> = Pick<Contract<R>, 'designs'> & { readonly bench: ContractBench<R> };

export function benchDesign<R>(contract: BenchedContract<R>, ref: R): BenchDesign {
  const { design, moduleUrl } = contract.designs.info(ref);
  return { id: design.id, moduleUrl, ...contract.bench.design(ref) };
}
