/**
 * The engine contract page (built only by tests/browser/engine-contract.test.ts,
 * never shipped): runs queries through the real app worker and its engine
 * host Web Workers, and hands each result back in the JSON form of the value
 * model, so bigints and bytes cross to the test exactly.
 */
import { wrap } from 'comlink';
import type { EngineName } from '../../../src/core/engine.ts';
import { encodeResultTable, type JsonResultTable } from '../../../src/core/value/json-codec.ts';
import type { AppApi } from '../../../src/worker/app.worker.ts';

export type PageOutcome = { ok: true; table: JsonResultTable } | { ok: false; error: string };

async function run(engine: EngineName, sqls: string[]): Promise<PageOutcome[]> {
  const worker = new Worker(new URL('../../../src/worker/app.worker.ts', import.meta.url), { type: 'module' });
  const api = wrap<AppApi>(worker);
  try {
    const started = await api.startEngine(engine);
    if (!started.ok) throw new Error(started.error.message);
    const fixture = {
      name: 'empty',
      files: [
        {
          fileName: 'empty.sql',
          format: 'sql' as const,
          bytes: new TextEncoder().encode('CREATE TABLE placeholder(x INTEGER);'),
        },
      ],
    };
    const loaded = await api.loadFixture(engine, fixture);
    if (!loaded.ok) throw new Error(loaded.error.message);
    const out: PageOutcome[] = [];
    for (const sql of sqls) {
      const outcome = await api.execute({ engine, sql });
      if (!outcome.ok) {
        out.push({ ok: false, error: `${outcome.error.code}: ${outcome.error.message}` });
        continue;
      }
      try {
        out.push({ ok: true, table: encodeResultTable(outcome.value) });
      } catch (thrown) {
        // A cell that is not what its column kind says cannot be encoded: that case fails, not the page.
        out.push({
          ok: false,
          error: `the result cannot be encoded: ${thrown instanceof Error ? thrown.message : String(thrown)}`,
        });
      }
    }
    return out;
  } finally {
    await api.close();
    worker.terminate();
  }
}

(globalThis as unknown as { sqlVerdictContract: { run: typeof run } }).sqlVerdictContract = { run };
