/** Messages between the grading pool and its worker threads (plain data, structured-cloned). */
import type { CorpusCase } from '../core/corpus/types.ts';
import type { EngineName, ExecuteOptions, FixtureSource } from '../core/engine.ts';
import type { Outcome } from '../core/errors.ts';
import type { EvaluationConfig } from '../core/evaluation/request.ts';
import type { HostSettings } from './host-api.ts';
import type { CompiledWasm } from './node-sessions.ts';
import type { StoppedHow } from './in-thread.ts';

export interface GradeWorkerData {
  engine: EngineName;
  settings?: HostSettings;
  /** The QueryWatch buffer this thread writes its running query to. */
  watch: SharedArrayBuffer;
  /** Queries already known to time out or crash a thread. */
  stopped: [string, StoppedHow][];
  /** sql.js compiled once by the pool's thread. */
  sqlJsWasm?: CompiledWasm;
  /** Print each case's report at this indent (JSON text crosses threads faster than a cloned object graph). */
  printIndent?: string;
  /** From source (tests, a checkout), the tsx bootstrap's entry. */
  entry?: string;
}

export type EngineCall = 'execute' | 'explain' | 'digest' | 'info';

export type ToWorker =
  | { type: 'fixture'; name: string; source: FixtureSource }
  | { type: 'stopped'; entries: [string, StoppedHow][] }
  | { type: 'grade'; job: number; c: CorpusCase; sql: string; config: EvaluationConfig; dialect: 'duckdb' | 'sqlite' }
  | {
      type: 'call';
      job: number;
      fixture: string;
      method: EngineCall;
      sql?: string;
      options?: Omit<ExecuteOptions, 'signal'> & { analyze?: boolean };
    };

export type ToPool =
  | { type: 'ready' }
  /** `report`: prettyJson of the report at printIndent; `rest`: the other fields of GradedCase as JSON. */
  | { type: 'graded'; job: number; graded: { report: string; rest: string } | null }
  | { type: 'called'; job: number; value: unknown }
  | { type: 'failed'; job: number; message: string };

export type CallResult = Outcome<unknown>;
