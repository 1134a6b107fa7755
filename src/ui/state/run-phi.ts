/**
 * STEF Φ of each case's query (deterministic rules: the question, the enriched
 * question and the SQL; no reference, no engine), scored in the app worker once
 * per run while the page lives. The Compare page draws it for A beside B.
 */
import type { StefInput } from '../../core/stef/index.ts';
import type { AppClient } from './app-client.ts';
import type { StoredRun } from './store.ts';

export type PhiBackend = Pick<AppClient, 'stefPhis'>;

/** The STEF inputs of a run's cases that have a query, by case id. */
export function stefInputs(run: StoredRun): { ids: string[]; inputs: StefInput[] } {
  // STEF's dialects: SQLite's, else DuckDB's (PostgreSQL-like) grammar.
  const dialect = run.report?.corpus.engine === 'sqlite' ? 'sqlite' : 'duckdb';
  const withQuery = run.cases.filter((c) => c.query);
  return {
    ids: withQuery.map((c) => c.id),
    inputs: withQuery.map((c) => ({
      question: c.question,
      enriched_question: c.enriched_question,
      sql: c.query!,
      dialect,
    })),
  };
}

const BATCH = 25;
const cache = new Map<string, Promise<Map<string, number>>>();

/** Φ by case id (cases whose query has no Φ are absent). */
export function runPhis(backend: PhiBackend, run: StoredRun): Promise<Map<string, number>> {
  let p = cache.get(run.id);
  if (!p) {
    const { ids, inputs } = stefInputs(run);
    p = (async () => {
      const phis: (number | null)[] = [];
      // In batches: a query takes tens of ms, and the worker's other calls (try a fix, full results, a new run) go between them.
      for (let i = 0; i < inputs.length; i += BATCH) phis.push(...(await backend.stefPhis(inputs.slice(i, i + BATCH))));
      return new Map(ids.flatMap((id, i) => (phis[i] == null ? [] : [[id, phis[i]!] as [string, number]])));
    })();
    // A failed call is not kept: the next view asks again.
    p.catch(() => cache.delete(run.id));
    cache.set(run.id, p);
  }
  return p;
}
