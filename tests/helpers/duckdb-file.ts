/**
 * Real .duckdb database files for tests, committed under tests/fixtures/: the
 * sandboxed engine cannot write files and the WASM build cannot export one
 * (duckdb-wasm#1987), so they were written once by native DuckDB 1.4.3 (the
 * storage version of DuckDB-WASM 1.32). Their contents are described where
 * the tests use them.
 */
import path from 'node:path';
import { repoRoot } from './paths.ts';

export function duckDbTestFile(name: 'shop.duckdb' | 'ledger.duckdb'): string {
  return path.join(repoRoot, 'tests', 'fixtures', name);
}
