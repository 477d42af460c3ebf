/**
 * Whether a design's URL (a variant's knobs in its fragment) names a design in SQL: a file a contract that
 * has such designs reads itself, and one no contract imports as a module.
 */
export const isSqlDesignUrl = (moduleUrl: string) => /\.sql(#|$)/.test(moduleUrl);
