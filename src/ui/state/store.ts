/**
 * Runs kept in IndexedDB: the inputs (so an interrupted run can be resumed),
 * every case graded so far, the finished report and the reviewers' decisions.
 */
import type { VerdictError } from '../../core/errors.ts';
import type { CaseReport, RunReport } from '../../core/run/grade-run.ts';
import type { PolicyPreset } from '../../core/run/preset-grade.ts';
import type { InputFile } from '../../worker/app.worker.ts';

export type RunStatus = 'running' | 'done' | 'failed' | 'cancelled';

/** A human decision recorded next to (never instead of) the verdict. */
export interface Review {
  agree: boolean;
  note: string;
  at: string;
}

export interface StoredRun {
  id: string;
  createdAt: string;
  status: RunStatus;
  corpus: InputFile;
  run: InputFile;
  /** Names of user-loaded fixtures it used (kept in memory only: a resume needs them loaded again). */
  userFixtures: string[];
  timeoutMs: number;
  total: number;
  cases: CaseReport[];
  report: RunReport | null;
  error: VerdictError | null;
  reviews: Record<string, Review>;
  /** How many times a reload resumed it. */
  resumed: number;
  /** Fixture content digests when grading started: a resume keeps earlier cases only if they still hold. */
  fixtureDigests?: Record<string, string> | null;
  /** Review mode: the run pauses at each flagged case. */
  reviewMode?: boolean;
  /** The user chose to grade a run that declares another corpus or corpus digest. */
  allowCorpusMismatch?: boolean;
  /** The AI judge it used (never the key). */
  judge?: { kind: string; baseUrl: string; model: string } | null;
  /** Cases kept from before the last interruption instead of regraded. */
  keptOnResume?: number;
  /** A report the CLI wrote, opened in the app (not graded here): its file, form and when the CLI graded it. */
  openedFrom?: { file: string; form: 'json' | 'jsonl'; startedAt: string };
  /** A benchmark folder's run: one engine reloaded per database. */
  switchEngines?: boolean;
  /** Reference ports applied to the corpus (the CLI's --ports): graded on their engine (PGlite). */
  ports?: InputFile;
  /** Graded under a benchmark's policy (the CLI's --policy spider|bird [--keep-distinct] [--ves-iterations N]). */
  preset?: PolicyPreset & { vesIterations?: number };
}

const DB = 'sql-verdict';
const STORE = 'runs';

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE, { keyPath: 'id' });
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB is unavailable'));
  });
}

let db: Promise<IDBDatabase> | null = null;

async function tx<T>(mode: IDBTransactionMode, work: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  db ??= open();
  const store = (await db).transaction(STORE, mode).objectStore(STORE);
  return new Promise((resolve, reject) => {
    const request = work(store);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB request failed'));
  });
}

/** Callers pass plain data (`$state.raw` values or snapshots): structured clone refuses proxies. */
export const runStore = {
  put: (run: StoredRun) => tx('readwrite', (s) => s.put(run)),
  get: (id: string) => tx<StoredRun | undefined>('readonly', (s) => s.get(id) as IDBRequest<StoredRun | undefined>),
  all: () => tx<StoredRun[]>('readonly', (s) => s.getAll() as IDBRequest<StoredRun[]>),
  delete: (id: string) => tx('readwrite', (s) => s.delete(id)),
};
