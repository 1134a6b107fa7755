/**
 * sql-verdict as a Node library: the pure core plus the engines (DuckDB-WASM and sql.js in
 * supervised worker threads).
 *
 *   import { evaluate, evaluationRequest, openEngine } from 'sql-verdict';
 */
export * from './core/index.ts';
export { openEngine } from './engines/node.ts';
export type { SupervisedEngine, SupervisorOptions } from './engines/supervisor.ts';
