/**
 * Whether native DuckDB (@duckdb/node-api) loads on this machine. Its binding is one optional package per
 * platform (@duckdb/node-bindings-<platform>-<arch>): npm skips it where the registry has none for the platform,
 * so the WASM engines work there and `--engine duckdb-native` says why it cannot (docs/native-duckdb.md).
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let problem: string | null | undefined;

/**
 * Null when native DuckDB loads; else one line saying why not. Loads the binding once (no database opened): the
 * platform's duckdb.node through @duckdb/node-bindings, as @duckdb/node-api does, without node-api's own modules
 * (this runs on the CLI's main thread, which has no other use for them; its engine threads load them).
 */
export function nativeDuckDbProblem(): string | null {
  if (problem !== undefined) return problem;
  try {
    // SQL_VERDICT_NATIVE_BINDING=absent: behave as on a platform without a binding (tests of that path).
    if (process.env.SQL_VERDICT_NATIVE_BINDING === 'absent')
      throw new Error(`Cannot find module '@duckdb/node-bindings-${process.platform}-${process.arch}/duckdb.node'`);
    createRequire(require.resolve('@duckdb/node-api'))('@duckdb/node-bindings');
    problem = null;
  } catch (thrown) {
    const why = (thrown instanceof Error ? thrown.message : String(thrown)).split('\n')[0];
    problem =
      `native DuckDB (@duckdb/node-api) cannot load on ${process.platform}-${process.arch}: ${why}. ` +
      `Its binding @duckdb/node-bindings-${process.platform}-${process.arch} is an optional package that was not ` +
      `installed; DuckDB-WASM works without it.`;
  }
  return problem;
}
