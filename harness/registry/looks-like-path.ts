/**
 * Whether a design or scenario named on the command line is a module path rather than a built-in id. Apart
 * from design-module.ts, which imports tsx: the options are read on every start, a module only when named.
 */
export function looksLikePath(name: string): boolean {
  return name.includes('/') || /\.((c|m)?[jt]s|sql)$/.test(name);
}
