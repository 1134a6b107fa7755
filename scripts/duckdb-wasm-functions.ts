/**
 * Write src/engines/duckdb/wasm-functions.ts: every function name of a blank DuckDB-WASM database (the pinned
 * @duckdb/duckdb-wasm). Native DuckDB refuses the functions it has beyond these as DuckDB-WASM does, without
 * starting DuckDB-WASM to ask. tests/engines/duckdb-native-gate.test.ts fails when the list and DuckDB-WASM
 * disagree (after an upgrade): run this again then.
 *
 *   node --import tsx scripts/duckdb-wasm-functions.ts [--check]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { blockingDuckDbWasm, wasmFunctionNames, wasmFunctionsModule } from './duckdb-wasm/functions.ts';

const target = fileURLToPath(new URL('../src/engines/duckdb/wasm-functions.ts', import.meta.url));
const { db, packageVersion } = await blockingDuckDbWasm();
const { names, build } = wasmFunctionNames(db, packageVersion);
const text = wasmFunctionsModule(names, build);
if (process.argv.includes('--check')) {
  const same = readFileSync(target, 'utf8') === text;
  console.log(same ? `${target}: up to date (${names.length} names)` : `${target}: out of date`);
  process.exit(same ? 0 : 1);
}
writeFileSync(target, text);
console.log(`${target}: ${names.length} function names of ${build}`);
