/**
 * Build a real .duckdb database file for tests with native DuckDB 1.4.3 (the
 * same storage version as DuckDB-WASM 1.32): the sandboxed engine cannot
 * write files, and the WASM build cannot export one (duckdb-wasm#1987).
 */
import { DuckDBInstance } from '@duckdb/node-api';

export async function writeDuckDbFile(filePath: string, statements: string[]): Promise<void> {
  const instance = await DuckDBInstance.create(filePath);
  const connection = await instance.connect();
  try {
    for (const sql of statements) await connection.run(sql);
    await connection.run('CHECKPOINT');
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
