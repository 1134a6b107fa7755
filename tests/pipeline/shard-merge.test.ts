/**
 * Sharded runs and their merge (src/core/report/merge.ts): the shards of a run,
 * graded as `run --shard K/N` grades them (a selection of cases before the run
 * loop, real engines), merged in any order and grouping, give the report of the
 * single-process run byte for byte once timings are dropped — on the built-in
 * execution goldens (DuckDB-WASM, the flawed sample run) and on the shipped
 * Spider subset (sql.js, every other pair: 200 pairs, 6 databases). Gate, diff and the exports
 * read the merged report as they read the single one; bad inputs are refused
 * with the file and the field named.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPairs, writeInputs } from '../../bench/spider-run.ts';
import { EnginePool } from '../../src/cli/engine-pool.ts';
import { prettyJson } from '../../src/cli/json.ts';
import { loadCorpus } from '../../src/core/corpus/load-corpus.ts';
import { loadRun, type LoadedRun } from '../../src/core/corpus/load-run.ts';
import type { LoadedCorpus } from '../../src/core/corpus/types.ts';
import { recordBaseline } from '../../src/core/gate/baseline.ts';
import { diffRuns } from '../../src/core/gate/diff.ts';
import { toCsv } from '../../src/core/gate/export/csv.ts';
import { junitDetailsOf, toJUnit } from '../../src/core/gate/export/junit.ts';
import { toMarkdown } from '../../src/core/gate/export/markdown.ts';
import { applyGate } from '../../src/core/gate/gate.ts';
import { isSuccess } from '../../src/core/gate/outcome.ts';
import { readReportFile } from '../../src/core/gate/report-file.ts';
import {
  mergeRunReports,
  normalizeRunReport,
  selectShard,
  shardOf,
  shardPositions,
  type MergeInput,
  type ReportShard,
  type ShardedRunReport,
} from '../../src/core/report/merge.ts';
import { htmlCaseDetail, toHtml } from '../../src/core/report/html.ts';
import { gradeRun, type GradeRunInput, type RunReport } from '../../src/core/run/grade-run.ts';
import { runCli } from '../helpers/cli.ts';
import { repoRoot, spiderSubsetDir } from '../helpers/paths.ts';

// This file tests grading, not fault recovery (tests/engines/sandbox.test.ts does): no warm spare,
// which is a second engine start and fixture load per fixture.
const NO_SPARE = { warmSpare: false };

const dir = mkdtempSync(path.join(tmpdir(), 'sql-verdict-shards-'));

interface Graded {
  single: RunReport;
  shards: MergeInput[];
}

async function grade(
  corpus: LoadedCorpus,
  run: LoadedRun,
  pool: EnginePool,
  n: number,
  config: GradeRunInput['config'] = {},
): Promise<Graded> {
  const single = await gradeRun({ corpus, run, engineFor: pool.engineFor, config });
  if (!single.ok) throw new Error(single.error.message);
  const shards: MergeInput[] = [];
  for (let k = 1; k <= n; k++) {
    const graded = await gradeRun({
      corpus: selectShard(corpus, { index: k, count: n }),
      run,
      engineFor: pool.engineFor,
      config,
    });
    if (!graded.ok) throw new Error(graded.error.message);
    // As the CLI writes it: the shard field last, through JSON.
    const report: ShardedRunReport = {
      ...graded.value,
      shard: shardOf({ index: k, count: n }, corpus.corpus.cases.length),
    };
    shards.push({ file: `shard-${k}.json`, report: JSON.parse(prettyJson(report)) as unknown });
  }
  return { single: JSON.parse(prettyJson(single.value)) as RunReport, shards };
}

const bytes = (report: unknown) => prettyJson(normalizeRunReport(report));

/** Null when equal, else the first differing line with its neighbours (a readable failure on megabytes). */
function firstDifference(a: string, b: string): string | null {
  if (a === b) return null;
  const la = a.split('\n');
  const lb = b.split('\n');
  let i = 0;
  while (la[i] === lb[i]) i++;
  return `line ${i + 1}:\n${la.slice(Math.max(0, i - 8), i + 2).join('\n')}\n--- vs ---\n${lb.slice(Math.max(0, i - 8), i + 2).join('\n')}`;
}

function merged(inputs: readonly MergeInput[]): ShardedRunReport {
  const m = mergeRunReports(inputs);
  if (!m.ok) throw new Error(m.error.message);
  return m.value;
}

let goldens: Graded;
let spider: Graded;
let duckdb: EnginePool;
let sqlite: EnginePool;

beforeAll(async () => {
  const corpusFile = path.join(repoRoot, 'fixtures/corpora/execution_goldens.yaml');
  const c = await loadCorpus(new Uint8Array(readFileSync(corpusFile)), { file: 'execution_goldens.yaml' });
  if (!c.ok) throw new Error(JSON.stringify(c.problems));
  const r = await loadRun(
    new Uint8Array(readFileSync(path.join(repoRoot, 'fixtures/runs/execution_goldens.flawed.jsonl'))),
    { file: 'flawed.jsonl', caseIds: c.loaded.corpus.cases.map((k) => k.id) },
  );
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  duckdb = new EnginePool('duckdb', new Map(), repoRoot, NO_SPARE);
  goldens = await grade(c.loaded, r.run, duckdb, 3);

  // Every other pair of the subset (200 pairs, all 6 databases): the suite stays short on a loaded machine.
  const pairs = readPairs(spiderSubsetDir, Infinity, 2);
  const files = writeInputs(dir, pairs);
  const sc = await loadCorpus(new Uint8Array(readFileSync(files.corpus)), { file: 'spider-subset.json' });
  if (!sc.ok) throw new Error(JSON.stringify(sc.problems));
  const sr = await loadRun(new Uint8Array(readFileSync(files.run)), {
    file: 'spider-subset.jsonl',
    caseIds: sc.loaded.corpus.cases.map((k) => k.id),
  });
  if (!sr.ok) throw new Error(JSON.stringify(sr.problems));
  const dbs = new Map(
    [...new Set(pairs.map((p) => p.db_id))].map((db) => [
      db,
      path.join(spiderSubsetDir, 'database', db, `${db}.sqlite`),
    ]),
  );
  sqlite = new EnginePool('sqlite', dbs, repoRoot, NO_SPARE);
  // Without counterfactuals (as scripts/spider-agreement.ts grades Spider): on a machine at load 40+ a transplant
  // can miss its budget in one run and not the other, a difference in the runs rather than in the merge.
  spider = await grade(sc.loaded, sr.run, sqlite, 4, { enable_counterfactuals: false });
}, 1_200_000);

afterAll(async () => {
  await duckdb?.close();
  await sqlite?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('shard selection (round-robin over corpus order)', () => {
  it('N shards are disjoint, cover the corpus, differ in size by at most one, and keep corpus order', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 1, max: 12 }), (size, n) => {
        const all = Array.from({ length: n }, (_, k) => shardPositions(size, n, [k + 1]));
        const flat = all.flat().sort((a, b) => a - b);
        expect(flat).toEqual(Array.from({ length: size }, (_, i) => i));
        const sizes = all.map((s) => s.length);
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
        for (const s of all) expect(s).toEqual([...s].sort((a, b) => a - b));
        expect(
          shardPositions(
            size,
            n,
            Array.from({ length: n }, (_, k) => k + 1),
          ),
        ).toEqual(Array.from({ length: size }, (_, i) => i));
      }),
    );
  });
});

describe('merged shards = the single-process run (timings aside)', () => {
  it('execution goldens (DuckDB-WASM, flawed run) in 3 shards', () => {
    expect(goldens.shards.map((s) => (s.report as RunReport).cases.length)).toEqual([22, 21, 21]);
    const m = merged(goldens.shards);
    expect(m.shard).toBeUndefined();
    expect(firstDifference(bytes(m), bytes(goldens.single))).toBeNull();
    // Not vacuous: the run has failures, and timings were really dropped.
    expect(m.summary.failures.length).toBe(23);
    expect(bytes(m)).not.toMatch(/timings_ms|"started_at"/);
  });

  it('the Spider subset (sql.js, 200 pairs, 6 databases) in 4 shards', () => {
    const m = merged(spider.shards);
    expect(m.cases.length).toBe(200);
    expect(new Set(m.cases.map((k) => k.fixture)).size).toBe(6);
    expect(m.fixtures.map((f) => f.name)).toEqual(spider.single.fixtures.map((f) => f.name));
    expect(firstDifference(bytes(m), bytes(spider.single))).toBeNull();
    expect(m.summary.answer_accuracy.correct).toBeLessThan(200);
  });

  it('property: any order and any grouping of the shards merges to the same report', () => {
    const bothRuns = fc.constantFrom(goldens, spider);
    // A random merge tree: shuffle the shards, cut them into groups, merge each group, then merge the groups in a shuffled order.
    fc.assert(
      fc.property(bothRuns, fc.integer(), fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }), (g, seed, cuts) => {
        const order = shuffled(g.shards, seed);
        const groups: MergeInput[][] = [[]];
        order.forEach((s, i) => {
          if (i > 0 && cuts[i - 1]) groups.push([]);
          groups.at(-1)!.push(s);
        });
        const partials = groups.map((group, i) => ({
          file: `partial-${i}.json`,
          report: JSON.parse(prettyJson(merged(group))) as unknown,
        }));
        const whole = merged(shuffled(partials, seed ^ 0x5bd1e995));
        expect(bytes(whole)).toBe(bytes(g.single));
      }),
      { numRuns: 8 },
    );
  }, 300_000);

  it('property: commutative and associative on partial merges (exactly, timings included)', () => {
    // Three of the Spider subset's four shards (a partial merge), or the goldens' three (a whole one).
    fc.assert(
      fc.property(
        fc.oneof(
          fc.tuple(fc.constant(spider), fc.shuffledSubarray([0, 1, 2, 3], { minLength: 3, maxLength: 3 })),
          fc.tuple(fc.constant(goldens), fc.shuffledSubarray([0, 1, 2], { minLength: 3, maxLength: 3 })),
        ),
        ([g, [a, b, c]]) => {
          const s = g.shards;
          const x = s[a!]!;
          const y = s[b!]!;
          const z = s[c!]!;
          const as = (r: ShardedRunReport, file: string): MergeInput => ({ file, report: r });
          expect(prettyJson(merged([x, y]))).toBe(prettyJson(merged([y, x])));
          const left = merged([as(merged([x, y]), 'xy'), z]);
          const right = merged([x, as(merged([y, z]), 'yz')]);
          expect(prettyJson(left)).toBe(prettyJson(right));
          expect(prettyJson(left)).toBe(prettyJson(merged([z, y, x])));
          if (g === spider) expect(left.shard?.shards).toEqual([a!, b!, c!].map((i) => i + 1).sort());
          else expect(left.shard).toBeUndefined();
        },
      ),
      { numRuns: 8 },
    );
  }, 300_000);
});

/** A deterministic shuffle (fast-check gives the seed, so a failure replays). */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe('gate, diff and exports read a merged report', () => {
  it('as they read the single-process report', () => {
    const m = merged(goldens.shards);
    const a = readReportFile('single.json', prettyJson(goldens.single));
    const b = readReportFile('merged.json', prettyJson(m));
    if (!a.ok || !b.ok) throw new Error(!a.ok ? a.error.message : !b.ok ? b.error.message : '');
    expect(b.value).toEqual(a.value);
    const diff = diffRuns(a.value, b.value);
    if (!diff.ok) throw new Error(diff.error.message);
    expect(diff.value.regressed_ids).toEqual([]);
    expect(diff.value.fixed_ids).toEqual([]);
    expect(diff.value.counts.outcome_changed).toBe(0);
    expect(diff.value.counts.unchanged_wrong).toBe(23);
    const baseline = recordBaseline(a.value, { date: '2026-12-01' });
    if (!baseline.ok) throw new Error(baseline.error.message);
    expect(applyGate(b.value, baseline.value)).toEqual(applyGate(a.value, baseline.value));
    expect(toMarkdown(b.value)).toBe(toMarkdown(a.value));
    expect(toCsv(b.value)).toBe(toCsv(a.value));
    const junit = (r: RunReport) =>
      toJUnit(r.summary, undefined, junitDetailsOf(r)).replace(/(time|timestamp)="[^"]*"/g, '$1=""');
    expect(junit(m)).toBe(junit(goldens.single));
  });
});

describe('merge refuses inputs that are not shards of one run', () => {
  const withReport = (i: number, edit: (r: ShardedRunReport & { shard: ReportShard }) => void): MergeInput[] =>
    goldens.shards.map((s, j) => {
      if (j !== i) return s;
      const r = structuredClone(s.report) as ShardedRunReport & { shard: ReportShard };
      edit(r);
      return { file: s.file, report: r };
    });
  const error = (inputs: MergeInput[]) => {
    const m = mergeRunReports(inputs);
    if (m.ok) throw new Error('merged');
    return m.error.message;
  };

  it('another corpus digest, run file, tool version or configuration', () => {
    expect(error(withReport(1, (r) => (r.corpus.sha256 = '0'.repeat(64))))).toMatch(
      /^shard-2\.json \(field corpus\.sha256\): differs from shard-1\.json/,
    );
    expect(error(withReport(2, (r) => (r.run.sha256 = 'f'.repeat(64))))).toMatch(
      /^shard-3\.json \(field run\.sha256\)/,
    );
    expect(error(withReport(1, (r) => (r.run_metadata.tool_version = 'sql-verdict 9.9.9')))).toMatch(
      /shard-2\.json \(field run_metadata\.tool_version\).*sql-verdict 9\.9\.9/,
    );
    expect(error(withReport(1, (r) => (r.run_metadata.config = { query_timeout_ms: 1 })))).toMatch(
      /shard-2\.json \(field run_metadata\.config\.query_timeout_ms\)/,
    );
    expect(error(withReport(1, (r) => (r.summary.reliability.c = 2)))).toMatch(/field summary\.reliability\.c/);
    // Every shard of a newer report version (or none): refused as the gate refuses it, not merged as if known.
    const allShards = (edit: (r: ShardedRunReport) => void) =>
      goldens.shards.map((s) => {
        const report = structuredClone(s.report) as ShardedRunReport;
        edit(report);
        return { ...s, report };
      });
    expect(error(allShards((r) => (r.report_version = '9.0.0')))).toMatch(
      /^shard-1\.json \(field report_version\): report_version 9\.0\.0 is not one this sql-verdict can read/,
    );
    expect(error(allShards((r) => delete (r as Partial<ShardedRunReport>).report_version))).toMatch(
      /^shard-1\.json \(field report_version\): report_version is missing/,
    );
  });

  it('a shard twice, another N, a truncated shard, a whole report, other fixture contents', () => {
    expect(error([...goldens.shards, goldens.shards[0]!])).toMatch(
      /^shard-1\.json \(field shard\.shards\): shard 1\/3 is also in shard-1\.json/,
    );
    expect(error(withReport(1, (r) => (r.shard.count = 4)))).toMatch(
      /^shard-2\.json \(field cases\): shard 2 of 4 over 64 cases hold 16 cases, the report has 21/,
    );
    expect(error(withReport(0, (r) => r.cases.pop()))).toMatch(
      /^shard-1\.json \(field cases\): shard 1 of 3 over 64 cases hold 22 cases, the report has 21/,
    );
    expect(error([{ file: 'single.json', report: goldens.single }, goldens.shards[0]!])).toMatch(
      /^single\.json \(field shard\): not a shard report/,
    );
    // Alone, a whole report is its own merge.
    expect(merged([{ file: 'single.json', report: goldens.single }])).toBe(goldens.single);
    expect(error(withReport(2, (r) => (r.fixtures[0]!.content_digest_before = 'x')))).toMatch(
      /^shard-3\.json \(field fixtures\[0\]\.content_digest_before\): fixture retail has another content digest/,
    );
    // The same database at another instant (run --as-of) answers relative-date questions otherwise.
    expect(error(withReport(2, (r) => (r.fixtures[0]!.as_of = '2030-01-01')))).toMatch(
      /^shard-3\.json \(field fixtures\[0\]\.as_of\): fixture retail was graded as of 2030-01-01 here and as of the real clock in shard-1\.json/,
    );
    expect(error([])).toMatch(/at least one/);
  });

  it('a hand-edited shard: a case turned correct, a summary figure changed, a case and its summary entry apart', () => {
    const wrongAt = (r: ShardedRunReport) => r.summary.cases.findIndex((k) => k.outcome === 'wrong');
    expect(wrongAt(goldens.shards[1]!.report as ShardedRunReport)).toBeGreaterThanOrEqual(0);
    // Both places a case's outcome is written, edited alike: the shard's own summary figures no longer add up.
    expect(
      error(
        withReport(1, (r) => {
          const i = wrongAt(r);
          r.cases[i]!.outcome = 'correct';
          r.summary.cases[i]!.outcome = 'correct';
        }),
      ),
    ).toMatch(/^shard-2\.json \(field summary\.[a-z_.[\]0-9]+\): the summary disagrees with the report's own cases/);
    expect(error(withReport(1, (r) => (r.summary.answer_accuracy.correct += 1)))).toMatch(
      /^shard-2\.json \(field summary\.answer_accuracy\.correct\)/,
    );
    expect(
      error(
        withReport(1, (r) => {
          r.cases[wrongAt(r)]!.outcome = 'correct';
        }),
      ),
    ).toMatch(/^shard-2\.json \(field cases\[\d+\]\.outcome\): "correct" here, "wrong" in summary\.cases/);
  });
});

describe('the CLI: run --shard and merge', () => {
  it('merge writes the merged report and exits as run would; bad input exits 2 naming the file and field', async () => {
    const files = goldens.shards.map((s, i) => {
      const f = path.join(dir, `g-shard-${i + 1}.json`);
      writeFileSync(f, `${prettyJson(s.report)}\n`);
      return f;
    });
    const out = path.join(dir, 'g-merged.json');
    const html = path.join(dir, 'g-merged.html');
    const result = await runCli([
      'merge',
      files[2]!,
      files[0]!,
      files[1]!,
      '--out',
      out,
      '--html',
      html,
      '--min-accuracy',
      '0.6',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Answer accuracy: 41\/64[\s\S]*Threshold met: answer accuracy 41\/64/);
    expect(bytes(JSON.parse(readFileSync(out, 'utf8')))).toBe(bytes(goldens.single));
    // The HTML report run --html writes for the single run: its failing cases with their SQL and samples.
    const undated = (text: string) => text.replace(/ on \d{4}-\d\d-\d\dT[\d:.]+Z/, '');
    const single = toHtml({
      summary: goldens.single.summary,
      details: goldens.single.cases.filter((k) => !isSuccess(k.outcome)).map((k) => htmlCaseDetail(k)),
    });
    expect(undated(readFileSync(html, 'utf8')).trimEnd()).toBe(undated(single));
    expect(single).toContain('data-testid');
    // A shard missing and a threshold given: the gate cannot be applied, so it is not passed (it was skipped, exit 0).
    const missing = await runCli(['merge', files[0]!, files[1]!, '--out', out, '--min-accuracy', '0.99']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--min-accuracy .*shard 3 of 3 is missing/);
    expect(existsSync(out) ? bytes(JSON.parse(readFileSync(out, 'utf8'))) : '').toBe(bytes(goldens.single));
    // Without a threshold a partial merge is still written, to be merged again later (exit 0).
    const partial = await runCli(['merge', files[0]!, files[1]!, '--out', path.join(dir, 'g-partial.json')]);
    expect(partial.code).toBe(0);
    expect(partial.stdout).toMatch(/^Partial merge: shards 1, 2 of 3/);
    const twice = await runCli(['merge', files[0]!, files[0]!, '--out', out]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/g-shard-1\.json \(field shard\.shards\)/);
    const badFlag = await runCli([
      'run',
      '--corpus',
      'execution_goldens',
      '--run',
      'fixtures/runs/execution_goldens.flawed.jsonl',
      '--shard',
      '5/4',
    ]);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toMatch(/--shard must be K\/N with 1 ≤ K ≤ N/);
    const threshold = await runCli([
      'run',
      '--corpus',
      'execution_goldens',
      '--run',
      'fixtures/runs/execution_goldens.flawed.jsonl',
      '--shard',
      '1/4',
      '--min-accuracy',
      '0.5',
    ]);
    expect(threshold.code).toBe(2);
    expect(threshold.stderr).toMatch(/thresholds .* go to "sql-verdict merge"/);
  }, 400_000);
});
