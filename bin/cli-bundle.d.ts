/** The types of cli-bundle.js, which runs before tsx (plain JavaScript). */
export declare function sourceFingerprint(root?: string, folders?: readonly string[]): string;
export declare function bundledModuleFiles(): string[];
export declare function cliBundle(): Promise<string | undefined>;
export declare const BUNDLED_MODULES: symbol;
