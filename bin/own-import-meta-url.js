/**
 * The esbuild plugin of every bundle of this package's TypeScript sources (the command line's,
 * cli-bundle.js; a crash child's, harness/crash/child-bundle.ts): each module is compiled with its own
 * file's URL as `import.meta.url`, as it has when it runs unbundled — designs read their SQL beside them,
 * worker threads start from their entry files. Through esbuild's `define`, which replaces the expression
 * only: the same words inside a string stay as they are.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** `transform`: esbuild's, passed in by the builder that imported esbuild. */
export function ownImportMetaUrl(transform) {
  return {
    name: 'own-import-meta-url',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, async (args) => {
        const { code } = await transform(readFileSync(args.path, 'utf8'), {
          loader: 'ts',
          format: 'esm',
          target: 'node20',
          sourcefile: args.path,
          sourcemap: 'inline',
          define: { 'import.meta.url': JSON.stringify(pathToFileURL(args.path).href) },
        });
        return { contents: code, loader: 'js' };
      });
    },
  };
}
