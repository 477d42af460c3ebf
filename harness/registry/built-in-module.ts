/** Whether a design module is one of this package's own (under strategies/), loaded as it is, unguarded. */
const BUILT_INS = new URL('../../strategies/', import.meta.url).href;

/** A TypeScript module under strategies/ (a design in SQL is read, not imported). */
export function isBuiltInModule(moduleUrl: string): boolean {
  return moduleUrl.startsWith(BUILT_INS) && moduleUrl.endsWith('.ts');
}

/** A contract's built-in designs by id: each file (relative to `folder`) as the module URL it loads from. */
export function builtInModules(
  folder: URL,
  files: Readonly<Record<string, string>>,
): Readonly<Record<string, string>> {
  return Object.fromEntries(Object.entries(files).map(([id, file]) => [id, new URL(file, folder).href]));
}
