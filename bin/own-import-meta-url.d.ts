/** The types of own-import-meta-url.js, which runs before tsx (plain JavaScript). */
import type { Plugin, transform } from 'esbuild';

export declare function ownImportMetaUrl(transformWith: typeof transform): Plugin;
