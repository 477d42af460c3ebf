/**
 * The shapes of names the exhaustive scope gives its keys, skus and users: families of names that differ
 * in one way a design could mistake for sameness — letter case, a shared prefix longer than a truncation,
 * the API's 128-character limit and one past it, spaces a trim removes, unicode forms that normalize
 * alike, SQL pattern characters (`_`, `%`) that LIKE matches against the other names. The HTTP API
 * refuses some of them (docs/http-api.md); the model then allows BAD_REQUEST, or the answer the contract
 * gives the name as it is — never one that takes it for another name.
 *
 * Every name starts with a tag of its program (digits: no case, no pattern), so programs run side by side
 * on one table set never share a name, and no truncation, case folding or trim makes them share one. The
 * name a pattern character can match comes first in a family: a LIKE lookup of the second name finds it.
 */

/** A family of names: the i-th name (0-based) of a program tagged `tag`. */
export interface NameFamily {
  id: string;
  /** Fewest names of its kind a program must use for the family to differ from the plain one. */
  needs: 1 | 2;
  name(i: number, tag: string): string;
}

const LIMIT = 128;
/** A name of exactly `length` characters: the tag, the stem, filler, then what tells it from the others. */
const padded = (tag: string, stem: string, last: string, length: number) =>
  `${tag}${stem}${'x'.repeat(Math.max(0, length - tag.length - stem.length - last.length))}${last}`;
const DIGITS = ['1', '2', '3'];
const at = (names: readonly string[], i: number) => names[i] ?? `${names.at(-1)}${i}`;

/** NFD, NFC and the Angstrom sign: one letter to NFKC (and NFC but for the first). */
const A_RING = ['A\u030a', '\u00c5', '\u212b'];

export const KEY_FAMILIES: readonly NameFamily[] = [
  { id: 'plain', needs: 1, name: (i, tag) => `${tag}k${at(DIGITS, i)}` },
  { id: 'case', needs: 2, name: (i, tag) => `${tag}k${at(['a', 'A', 'Ab'], i)}` },
  { id: 'long', needs: 1, name: (i, tag) => padded(tag, 'k', at(DIGITS, i), LIMIT) },
  { id: 'past-limit', needs: 1, name: (i, tag) => padded(tag, 'k', at(DIGITS, i), LIMIT + 1) },
  { id: 'spaces', needs: 1, name: (i, tag) => at([` ${tag}k `, `${tag}k`, `${tag}k `], i) },
  { id: 'unicode', needs: 1, name: (i, tag) => `${tag}k${at(A_RING, i)}` },
  { id: 'pattern', needs: 2, name: (i, tag) => `${tag}k${at(['x1', '_1', '%'], i)}` },
];

export const SKU_FAMILIES: readonly NameFamily[] = [
  { id: 'plain', needs: 1, name: (i, tag) => `${tag}sku-${at(['a', 'b'], i)}` },
  { id: 'case', needs: 2, name: (i, tag) => `${tag}${at(['sku-a', 'SKU-A'], i)}` },
  { id: 'underscore', needs: 2, name: (i, tag) => `${tag}${at(['sku-a', 'sku_a'], i)}` },
  // `sku-a%` starts with `sku-a` and, as a LIKE pattern, matches it: a prefix match takes either for the other.
  { id: 'percent', needs: 2, name: (i, tag) => `${tag}${at(['sku-a', 'sku-a%'], i)}` },
  { id: 'long', needs: 1, name: (i, tag) => padded(tag, 'sku-', at(['a', 'b'], i), LIMIT) },
];

export const USER_FAMILIES: readonly NameFamily[] = [
  { id: 'plain', needs: 1, name: (i, tag) => `${tag}u${at(DIGITS, i)}` },
  { id: 'case', needs: 2, name: (i, tag) => `${tag}${at(['u1', 'U1', 'u1U'], i)}` },
];

/** One family per kind: the names a program is run with. */
export interface Naming {
  key: NameFamily;
  sku: NameFamily;
  user: NameFamily;
}

const family = (families: readonly NameFamily[], id: string): NameFamily => {
  const found = families.find((f) => f.id === id);
  if (!found) throw new Error(`no name family ${id}`);
  return found;
};
const naming = (key: string, sku: string, user = 'plain'): Naming => ({
  key: family(KEY_FAMILIES, key),
  sku: family(SKU_FAMILIES, sku),
  user: family(USER_FAMILIES, user),
});

export const PLAIN: Naming = naming('plain', 'plain');

/**
 * The namings every program runs under: together they give each family of each kind once. Families of
 * different kinds share a naming (a design that takes two keys for one fails with any sku), except that a
 * key the API refuses (past the limit, a space, a letter outside its characters) goes with plain skus
 * and users: a design may refuse the request before it compares any sku.
 */
export const NAMINGS: readonly Naming[] = [
  PLAIN,
  naming('case', 'case', 'case'),
  naming('long', 'long'),
  naming('pattern', 'underscore'),
  naming('plain', 'percent'),
  naming('past-limit', 'plain'),
  naming('spaces', 'plain'),
  naming('unicode', 'plain'),
];

/** Each family of a kind the program names too few of to tell from the plain one, made plain. */
function effective(n: Naming, counts: { keys: number; users: number; skus: number }): Naming {
  return {
    key: counts.keys >= n.key.needs ? n.key : PLAIN.key,
    sku: counts.skus >= n.sku.needs ? n.sku : PLAIN.sku,
    user: counts.users >= n.user.needs ? n.user : PLAIN.user,
  };
}

/** The namings a program of these counts runs under, each that differs from the others once. */
export function namingsFor(counts: { keys: number; users: number; skus: number }): Naming[] {
  const seen = new Set<string>();
  return NAMINGS.map((n) => effective(n, counts)).filter((n) => {
    const id = `${n.key.id}/${n.sku.id}/${n.user.id}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** How a naming is written in a report: its non-plain families. */
export function describeNaming(n: Naming): string {
  const odd = (['key', 'sku', 'user'] as const)
    .filter((k) => n[k].id !== 'plain')
    .map((k) => `${k}s ${n[k].id}`);
  return odd.length === 0 ? 'plain names' : odd.join(', ');
}
