/**
 * What names a case of any contract in the report: `<scenario>/<design>` (with `#n` for the n-th of
 * `run --repeat`'s runs), its contract, its scenario, its design and what the design claims.
 */
export function caseIdentity<K extends string, E extends string>(
  contract: K,
  scenario: { id: string },
  design: { id: string; expect: E },
  repetition: string,
) {
  return {
    id: `${scenario.id}/${design.id}${repetition}`,
    contract,
    scenario: scenario.id,
    strategy: design.id,
    expect: design.expect,
  };
}
