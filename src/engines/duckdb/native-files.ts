/**
 * Where a native DuckDB host process puts its copies of fixture files: a folder its parent made and removes
 * (src/engines/node.ts), since a host killed at a timeout cannot clean up after itself.
 */
export const NATIVE_FILES_ENV = 'SQL_VERDICT_NATIVE_FILES';
