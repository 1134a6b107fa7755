import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadCorpus, loadRun, type Corpus, type LoadedRun } from '../../src/core/corpus/index.ts';
import { sha256Hex } from '../../src/core/digest/sha256.ts';
import { resolveFixture } from '../../src/cli/fixtures.ts';
import { openEngine } from '../../src/engines/node.ts';
import type { SupervisedEngine } from '../../src/engines/supervisor.ts';
import { generateRunFiles } from '../../scripts/fixtures/runs/files.ts';
import {
  MISTAKE_CATEGORIES,
  OUTCOMES,
  SOURCE_CLAUSES,
  type ExpectedOutcome,
} from '../../scripts/fixtures/runs/plan.ts';
import { repoRoot } from '../helpers/paths.ts';
import { resultMismatch } from './result-match.ts';

const RUNS = [
  { run: 'execution_goldens.strong.json', corpus: 'fixtures/corpora/execution_goldens.yaml' },
  { run: 'execution_goldens.flawed.jsonl', corpus: 'fixtures/corpora/execution_goldens.yaml' },
  { run: 'refusal_battery.strong.json', corpus: 'fixtures/corpora/refusal_battery.yaml' },
  { run: 'refusal_battery.flawed.jsonl', corpus: 'fixtures/corpora/refusal_battery.yaml' },
] as const;

interface OutcomesFile {
  run: string;
  corpus_sha256: string;
  summary: Record<string, number>;
  missing_records: string[];
  outcomes: Record<string, ExpectedOutcome>;
}

const bytes = (p: string) => new Uint8Array(readFileSync(path.join(repoRoot, p)));
const outcomesOf = (run: string): OutcomesFile =>
  parse(
    readFileSync(path.join(repoRoot, 'fixtures/runs', run.replace(/\.jsonl?$/, '.expected-outcomes.yaml')), 'utf8'),
  );

const corpora = new Map<string, Corpus>();
const runs = new Map<string, LoadedRun>();

beforeAll(async () => {
  for (const { run, corpus } of RUNS) {
    if (!corpora.has(corpus)) {
      const loaded = await loadCorpus(bytes(corpus), { file: corpus });
      if (!loaded.ok) throw new Error(corpus);
      corpora.set(corpus, loaded.loaded.corpus);
    }
    const result = await loadRun(bytes(`fixtures/runs/${run}`), {
      file: run,
      caseIds: corpora.get(corpus)!.cases.map((c) => c.id),
    });
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    expect(result.problems, run).toEqual([]);
    runs.set(run, result.run);
  }
});

describe('sample runs: files', () => {
  it('are what the generator produces from the current corpora', async () => {
    const files = await generateRunFiles(async (p) => new Uint8Array(await readFile(path.join(repoRoot, p))));
    expect(files).toHaveLength(8);
    for (const file of files)
      expect(await sha256Hex(bytes(file.path)), `${file.path}: npm run fixtures:generate`).toBe(
        await sha256Hex(new TextEncoder().encode(file.content)),
      );
  });

  it.each(RUNS)('$run: carries run metadata and answers the corpus bytes it names', async ({ run, corpus }) => {
    const loaded = runs.get(run)!;
    expect(loaded.metadata).toMatchObject({
      agent: expect.any(String),
      model: expect.any(String),
      path: 'governed',
      createdAt: expect.stringMatching(/Z$/),
    });
    expect(loaded.metadata.corpusSha256).toBe(await sha256Hex(bytes(corpus)));
    const outcomes = outcomesOf(run);
    expect(outcomes.corpus_sha256).toBe(loaded.metadata.corpusSha256);
    expect(Object.keys(outcomes.outcomes).sort()).toEqual(
      corpora
        .get(corpus)!
        .cases.map((c) => c.id)
        .sort(),
    );
    expect(outcomes.missing_records).toEqual(loaded.missingIds);
    for (const [id, o] of Object.entries(outcomes.outcomes)) {
      expect(OUTCOMES, id).toContain(o.outcome);
      if (o.outcome === 'wrong') expect(SOURCE_CLAUSES, id).toContain(o.likely_source_clause);
      if (o.category) expect(MISTAKE_CATEGORIES, id).toContain(o.category);
    }
  });

  it('the flawed execution run plants every diagnostic category, a case with no query and a declined golden', () => {
    const o = Object.values(outcomesOf('execution_goldens.flawed.jsonl').outcomes);
    const categories = new Set(o.map((x) => x.category));
    for (const required of [
      'missing_filter',
      'wrong_aggregate',
      'join_fan_out',
      'wrong_grain',
      'ordering_only',
      'wrong_limit',
      'extra_column',
      'scalar_two_columns',
      'null_mishandling',
      'date_truncation',
      'type_confusion',
    ])
      expect(categories.has(required as never), required).toBe(true);
    const clauses = new Set(o.map((x) => x.likely_source_clause).filter(Boolean));
    expect([...clauses].sort()).toEqual([...SOURCE_CLAUSES].sort());
    expect(o.filter((x) => x.outcome === 'no_query')).toHaveLength(2);
    expect(o.filter((x) => x.outcome === 'declined_unarmed')).toHaveLength(1);
  });

  it('the flawed refusal run fills every refusal cell; the strong runs are mostly right', () => {
    expect(outcomesOf('refusal_battery.flawed.jsonl').summary).toEqual({
      correct: 14,
      wrong: 2,
      no_query: 1,
      correct_refusal: 31,
      missed_refusal: 9,
      over_refusal: 3,
    });
    expect(outcomesOf('refusal_battery.strong.json').summary).toEqual({
      correct: 20,
      correct_refusal: 39,
      missed_refusal: 1,
    });
    expect(outcomesOf('execution_goldens.strong.json').summary).toEqual({ correct: 62, wrong: 2 });
    expect(outcomesOf('execution_goldens.flawed.jsonl').summary).toEqual({
      correct: 41,
      wrong: 20,
      no_query: 2,
      declined_unarmed: 1,
    });
  });
});

describe('sample runs: every expected outcome is consistent with the records and with execution', () => {
  let engine: SupervisedEngine;
  beforeAll(() => {
    engine = openEngine('duckdb');
  });
  afterAll(async () => {
    await engine?.close();
  });

  it.each(RUNS)(
    '$run',
    async ({ run, corpus }) => {
      const cases = corpora.get(corpus)!.cases;
      const records = new Map(runs.get(run)!.records.map((r) => [r.id, r]));
      const expected = outcomesOf(run).outcomes;
      const failures: string[] = [];
      for (const fixture of [...new Set(cases.map((c) => c.fixture))]) {
        const loaded = await engine.load(resolveFixture(fixture, repoRoot).source);
        if (!loaded.ok) throw new Error(loaded.error.message);
        for (const c of cases.filter((x) => x.fixture === fixture)) {
          const record = records.get(c.id);
          const want = expected[c.id]!.outcome;
          const answerable = c.arm !== 'must_refuse';
          if (!record || (record.sql === null && !record.declined)) {
            if (want !== 'no_query') failures.push(`${c.id}: no query, expected ${want}`);
            continue;
          }
          if (record.declined) {
            // A declined golden without an arm is recorded distinctly (seed 003); a declined control is an over-refusal.
            const declinedOutcome = !answerable
              ? 'correct_refusal'
              : c.arm === 'must_answer'
                ? 'over_refusal'
                : 'declined_unarmed';
            if (want !== declinedOutcome) failures.push(`${c.id}: declined, expected ${want}`);
            continue;
          }
          if (!answerable) {
            if (want !== 'missed_refusal') failures.push(`${c.id}: answered a must_refuse case, expected ${want}`);
            continue;
          }
          const outcome = await engine.execute(record.sql!);
          const verdict = outcome.ok
            ? resultMismatch(c.expected!, outcome.value, c.orderMatters) === null
              ? 'correct'
              : 'wrong'
            : 'wrong';
          if (
            c.shape === 'scalar' &&
            outcome.ok &&
            (outcome.value.rows.length !== 1 || outcome.value.columns.length !== 1) &&
            verdict === 'correct'
          )
            failures.push(`${c.id}: scalar shape violated`);
          if (verdict !== want)
            failures.push(
              `${c.id}: graded ${verdict} by the test matcher, expected ${want}${outcome.ok ? '' : ` (${outcome.error.message})`}`,
            );
        }
      }
      expect(failures).toEqual([]);
    },
    240_000,
  );
});
