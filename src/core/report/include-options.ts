/**
 * What `config.include` (`--include`) may name. Its own module: the request model and the CLI's flag check read
 * it without loading the intermediates' code (the structure layer and its SQL grammars).
 */
export const INCLUDE_OPTIONS = ['intermediates'] as const;
export type IncludeOption = (typeof INCLUDE_OPTIONS)[number];
