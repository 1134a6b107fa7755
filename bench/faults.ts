/**
 * Fault figures (issue #17), `node --import tsx bench/faults.ts` or `npm run bench -- --only faults`:
 * - a whole `sql-verdict run` whose candidate returns 1M x 8 KB rows, at the default byte budget
 *   (256 MiB), per engine: the case ends resource_exhausted, the next case is graded, and the
 *   CLI's peak RSS (/usr/bin/time -v, the process and its engine threads) stays below 2 GiB;
 * - recovery: after a timeout kill, how long the next query takes, with and without the warm spare.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EngineName } from '../src/core/engine.ts';
import { openEngine } from '../src/engines/node.ts';
import { median, type Figure } from './harness.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// The two wasm engines of the fault bench (PGlite has its own bench in bench/engines-node.ts).
const HUGE: Record<Extract<EngineName, 'duckdb' | 'sqlite'>, string> = {
  duckdb: "SELECT repeat('x', 8192) AS s FROM range(1000000)",
  sqlite:
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 1000000) SELECT n, printf('%.*c', 8192, 'x') AS s FROM r",
};
const RUNAWAY = 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r';

/** `sql-verdict run` with the huge candidate first, then an ordinary case; peak RSS from GNU time. */
export function hugeResultRun(engine: keyof typeof HUGE): { figures: Figure[]; line: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'sql-verdict-faults-'));
  try {
    const cases = ['huge', 'after'].map(
      (id) =>
        `  - id: ${id}\n    fixture: retail\n    question: How many customers?\n    reference_sql: SELECT count(*) AS n FROM customers\n    shape: scalar\n`,
    );
    writeFileSync(
      path.join(dir, 'corpus.yaml'),
      `corpus: faults\nversion: 1\nengine: ${engine}\ncases:\n${cases.join('')}`,
    );
    writeFileSync(
      path.join(dir, 'run.jsonl'),
      [
        { id: 'huge', sql: HUGE[engine] },
        { id: 'after', sql: 'SELECT count(*) AS n FROM customers' },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n'),
    );
    const started = performance.now();
    let stderr = '';
    try {
      execFileSync(
        '/usr/bin/time',
        [
          '-v',
          process.execPath,
          path.join(root, 'bin', 'sql-verdict.mjs'),
          'run',
          '--corpus',
          'corpus.yaml',
          '--run',
          'run.jsonl',
          '--timeout-ms',
          '300000',
          '--out',
          'out.json',
        ],
        { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
      );
    } catch (thrown) {
      // Exit 1: a case failed, as it should.
      stderr = String((thrown as { stderr?: Buffer }).stderr ?? '');
    }
    const wallS = (performance.now() - started) / 1000;
    const rssKb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1] ?? NaN);
    const report = JSON.parse(readFileSync(path.join(dir, 'out.json'), 'utf8')) as {
      cases: { id: string; outcome: string; report?: { error_types?: string[] } }[];
    };
    const [huge, after] = report.cases;
    const line = `${engine}: huge → ${huge?.outcome} (${huge?.report?.error_types?.join(', ')}), next case → ${after?.outcome}; peak RSS ${(rssKb / 1024).toFixed(0)} MiB; ${wallS.toFixed(1)} s`;
    return {
      line,
      figures: [
        { name: `faults.${engine}.huge_result_run_peak_rss_mib`, value: rssKb / 1024, unit: 'MiB' },
        {
          name: `faults.${engine}.huge_result_run_resource_exhausted`,
          value: huge?.report?.error_types?.includes('resource_exhausted') && after?.outcome === 'correct' ? 1 : 0,
          unit: 'bool',
          lowerIsBetter: false,
        },
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Time to serve the next query after a timeout kill, with and without a warm spare. */
export async function recovery(engine: EngineName, warmSpare: boolean, rounds = 3): Promise<number[]> {
  const supervised = openEngine(engine, { warmSpare });
  try {
    const loaded = await supervised.load({
      name: 'retail',
      files: [
        { fileName: 'retail.sql', format: 'sql', bytes: readFileSync(path.join(root, 'fixtures', 'retail.sql')) },
      ],
      asOf: '2025-06-30',
    });
    if (!loaded.ok) throw new Error(loaded.error.message);
    const times: number[] = [];
    for (let i = 0; i < rounds; i++) {
      // A run has graded for a while before a fault: the spare has loaded by then.
      await supervised.spareReady();
      const killed = await supervised.execute(RUNAWAY, { timeoutMs: 500 });
      if (killed.ok || killed.error.code !== 'sandbox.timeout') throw new Error('expected a timeout');
      const started = performance.now();
      const next = await supervised.execute('SELECT count(*) FROM customers');
      if (!next.ok) throw new Error(next.error.message);
      times.push(performance.now() - started);
    }
    return times;
  } finally {
    await supervised.close();
  }
}

export async function benchFaults(): Promise<{ figures: Figure[]; lines: string[] }> {
  const figures: Figure[] = [];
  const lines: string[] = [];
  for (const engine of ['duckdb', 'sqlite'] as const) {
    const run = hugeResultRun(engine);
    figures.push(...run.figures);
    lines.push(run.line);
  }
  for (const engine of ['duckdb', 'sqlite'] as const) {
    for (const warm of [false, true]) {
      const times = await recovery(engine, warm);
      const name = `faults.${engine}.next_query_after_timeout_ms.${warm ? 'warm_spare' : 'reload'}`;
      figures.push({ name, value: median(times), unit: 'ms' });
      lines.push(
        `${engine}: next query after a timeout kill, ${warm ? 'warm spare' : 'restart + reload'}: ${times.map((t) => t.toFixed(0)).join(', ')} ms`,
      );
    }
  }
  return { figures, lines };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { figures, lines } = await benchFaults();
  console.log(lines.join('\n'));
  for (const f of figures) console.log(`${f.name}: ${f.value.toFixed(1)} ${f.unit}`);
}
