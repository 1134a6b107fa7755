/**
 * The benchmark importers (pure core): the committed samples in
 * fixtures/benchmarks, the test-suite's interaction layout, and bad inputs in
 * each format, whose problems must name file, line and field.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatProblem, type LoadProblem } from '../../src/core/corpus/problems.ts';
import { loadCorpus } from '../../src/core/corpus/load-corpus.ts';
import { loadRun } from '../../src/core/corpus/load-run.ts';
import {
  corpusYaml,
  runJsonl,
  topLevelLines,
  type DatabaseFolder,
  type InputFile,
} from '../../src/core/import/common.ts';
import { importBird } from '../../src/core/import/bird.ts';
import { expandAlternatives, importCsv, parseCsv } from '../../src/core/import/csv.ts';
import { importSpider } from '../../src/core/import/spider.ts';
import { repoRoot } from '../helpers/paths.ts';

const samples = path.join(repoRoot, 'fixtures', 'benchmarks');
const file = (rel: string, name = path.basename(rel)): InputFile => ({
  file: name,
  bytes: new Uint8Array(readFileSync(path.join(samples, rel))),
});
const text = (name: string, content: string): InputFile => ({ file: name, bytes: new TextEncoder().encode(content) });
const folder: DatabaseFolder = { dir: 'dev_databases', ids: ['school', 'shop'], withoutFile: ['empty_db'] };

function errors(problems: LoadProblem[]): string[] {
  return problems.filter((p) => p.severity === 'error').map(formatProblem);
}

describe('Spider', () => {
  it('reads a gold file and an aligned predictions file into a corpus and a run that load natively', async () => {
    const r = importSpider({
      gold: file('spider-sample/dev_gold.sql'),
      pred: file('spider-sample/pred.txt'),
      databases: folder,
    });
    expect(errors(r.problems)).toEqual([]);
    if (!r.ok) return;
    const { corpus, records, run } = r.imported;
    expect(corpus.cases.map((c) => c.id)).toEqual(['q0000', 'q0001', 'q0002', 'q0003', 'q0004', 'q0005']);
    expect(corpus.cases[2]).toMatchObject({
      fixture: 'shop',
      reference_sql: expect.stringContaining('SELECT DISTINCT c.name'),
      order_matters: false,
      shape: 'rows',
    });
    expect(records[3]).toEqual({ id: 'q0003', sql: 'SELECT grade_level, name FROM students' });
    expect(run?.agent).toBe('pred');
    const loaded = await loadCorpus(new TextEncoder().encode(corpusYaml(r.imported)), { file: 'dev_gold.sql' });
    expect(loaded.ok).toBe(true);
    const loadedRun = await loadRun(new TextEncoder().encode(runJsonl(r.imported)), {
      file: 'pred.txt',
      format: 'jsonl',
      caseIds: corpus.cases.map((c) => c.id),
    });
    expect(loadedRun.ok && loadedRun.run.records.length).toBe(6);
  });

  it('reads the test-suite layout: interactions separated by blank lines, in both files', () => {
    const gold = text('gold.txt', 'SELECT 1\tshop\nSELECT 2\tshop\n\nSELECT 3\tschool\n');
    const r = importSpider({ gold, pred: text('pred.txt', 'SELECT 1\nSELECT 2\n\nSELECT 3\n'), databases: folder });
    expect(r.ok && r.imported.corpus.cases.map((c) => c.id)).toEqual(['i000-t00', 'i000-t01', 'i001-t00']);
    const short = importSpider({ gold, pred: text('pred.txt', 'SELECT 1\n\nSELECT 3\n'), databases: folder });
    expect(errors(short.problems)).toEqual([
      expect.stringMatching(
        /^pred\.txt:2: error \[count_mismatch\] field 'prediction': Interaction 0 has 1 prediction\(s\); the gold's has 2/,
      ),
    ]);
  });

  it('takes questions from dev.json and checks that its db_ids agree with the gold file', () => {
    const dev = text(
      'dev.json',
      JSON.stringify(
        [
          { db_id: 'shop', query: 'SELECT 1', question: 'One?' },
          { db_id: 'shop', query: 'SELECT 2', question: 'Two?' },
        ],
        null,
        2,
      ),
    );
    const ok = importSpider({ questions: dev, gold: text('gold.sql', 'SELECT 1\tshop\nSELECT 2\tshop\n') });
    expect(ok.ok && ok.imported.corpus.cases.map((c) => c.question)).toEqual(['One?', 'Two?']);
    const bad = importSpider({ questions: dev, gold: text('gold.sql', 'SELECT 1\tshop\nSELECT 2\tschool\n') });
    expect(errors(bad.problems)).toEqual([
      expect.stringMatching(
        /^gold\.sql:2: error \[invalid_field\] case #2 field 'db_id': The gold line names db_id 'school'; question 1 of dev\.json \(line 7\) names 'shop'\./,
      ),
    ]);
  });

  it('names file, line and field: misaligned predictions, unknown db_id, missing database file, malformed gold line', () => {
    const gold = file('spider-sample/dev_gold.sql');
    const misaligned = importSpider({ gold, pred: text('pred.txt', 'SELECT 1\nSELECT 2\n'), databases: folder });
    expect(errors(misaligned.problems)).toEqual([
      "pred.txt:3: error [count_mismatch] field 'prediction': pred.txt has 2 prediction(s); dev_gold.sql has 6: predictions are matched to the gold by line.",
    ]);
    const unknown = importSpider({
      gold: text('gold.sql', 'SELECT 1\tshop\nSELECT 1\tshoop\nSELECT 2\tshoop\n'),
      databases: folder,
    });
    expect(errors(unknown.problems)).toEqual([
      "gold.sql:2: error [unknown_fixture] field 'db_id': Unknown db_id 'shoop': dev_databases has no shoop/shoop.sqlite (did you mean 'shop'?) (and 1 more line name it).",
    ]);
    const missing = importSpider({ gold: text('gold.sql', 'SELECT 1\tempty_db\n'), databases: folder });
    expect(errors(missing.problems)).toEqual([
      "gold.sql:1: error [missing_database] field 'db_id': The database folder dev_databases/empty_db has no empty_db.sqlite.",
    ]);
    const malformed = importSpider({ gold: text('gold.sql', 'SELECT 1\tshop\nSELECT 1 shop\n') });
    expect(errors(malformed.problems)).toEqual([
      "gold.sql:2: error [invalid_field] field 'db_id': A gold line is SQL<TAB>db_id; this one has 1 tab-separated field(s).",
    ]);
  });
});

describe('BIRD', () => {
  it('keeps evidence and BIRD difficulty labels, and reads "SQL\\t----- bird -----\\tdb_id" predictions', () => {
    const r = importBird({
      questions: file('bird-sample/dev.json'),
      pred: file('bird-sample/predict_dev.json'),
      databases: folder,
    });
    expect(errors(r.problems)).toEqual([]);
    if (!r.ok) return;
    expect(r.imported.corpus.cases.map((c) => c.difficulty)).toEqual([
      'simple',
      'simple',
      'moderate',
      'moderate',
      'challenging',
      'challenging',
    ]);
    expect(r.imported.corpus.cases[0]!.evidence).toBe("live in Lisbon refers to city = 'Lisbon'");
    expect(r.imported.corpus.cases[3]!.evidence).toBeUndefined();
    expect(r.imported.records[0]).toEqual({
      id: 'q0000',
      sql: "SELECT count(id) FROM customers WHERE city = 'Lisbon'",
    });
  });

  it('names file, line and field: malformed separator, misaligned count, unknown db_id, missing database, bad difficulty', () => {
    const questions = file('bird-sample/dev.json');
    const pred = JSON.parse(readFileSync(path.join(samples, 'bird-sample/predict_dev.json'), 'utf8')) as Record<
      string,
      string
    >;
    const separator = importBird({
      questions,
      pred: text('predict_dev.json', JSON.stringify({ ...pred, 2: 'SELECT 1\t---- bird ----\tshop' }, null, 4)),
    });
    expect(errors(separator.problems)).toEqual([
      expect.stringMatching(
        /^predict_dev\.json:4: error \[bad_separator\] case 'q0002' field '2': The prediction for "2" has no "\\t----- bird -----\\t" separator/,
      ),
    ]);
    const fewer = { ...pred };
    delete fewer['5'];
    const short = importBird({ questions, pred: text('predict_dev.json', JSON.stringify(fewer, null, 4)) });
    expect(errors(short.problems)).toEqual([
      `predict_dev.json:6: error [count_mismatch] field '5': predict_dev.json has 5 prediction(s); dev.json has 6 questions. No prediction for "5".`,
    ]);
    const dev = JSON.parse(readFileSync(path.join(samples, 'bird-sample/dev.json'), 'utf8')) as Record<
      string,
      unknown
    >[];
    const unknownDb = importBird({
      questions: text(
        'dev.json',
        JSON.stringify(
          dev.map((q, i) => (i === 4 ? { ...q, db_id: 'shops' } : q)),
          null,
          4,
        ),
      ),
      databases: folder,
    });
    expect(errors(unknownDb.problems)).toEqual([
      expect.stringMatching(
        /^dev\.json:\d+: error \[unknown_fixture\] case 'q0004' field 'db_id': Unknown db_id 'shops'/,
      ),
    ]);
    const line = topLevelLines(JSON.stringify(dev, null, 4))[4];
    expect(errors(unknownDb.problems)[0]).toContain(`dev.json:${line}:`);
    const missing = importBird({
      questions: text(
        'dev.json',
        JSON.stringify(
          dev.map((q) => ({ ...q, db_id: 'empty_db' })),
          null,
          4,
        ),
      ),
      databases: folder,
    });
    expect(errors(missing.problems)).toEqual([
      expect.stringMatching(
        /^dev\.json:2: error \[missing_database\] case 'q0000' field 'db_id': The database folder dev_databases\/empty_db has no empty_db\.sqlite \(and 5 more lines name it\)\./,
      ),
    ]);
    const hard = importBird({
      questions: text('dev.json', JSON.stringify([{ ...dev[0], difficulty: 'hard' }], null, 4)),
    });
    expect(errors(hard.problems)).toEqual([
      expect.stringMatching(
        /^dev\.json:2: error \[unknown_difficulty\] case #1 field 'difficulty': Element 0: difficulty "hard" is not one of BIRD's simple, moderate, challenging/,
      ),
    ]);
  });
});

describe('JSON files of the wrong shape', () => {
  it('names the file and the shape expected: dev.json that is not a list, BIRD predictions that are not an object', () => {
    const spider = importSpider({
      gold: file('spider-sample/dev_gold.sql'),
      questions: text('dev.json', '{"db_id": "shop"}'),
      databases: folder,
    });
    expect(errors(spider.problems)).toEqual([
      'dev.json:1: error [not_a_mapping]: Spider dev.json is a list of {db_id, query, question} objects.',
    ]);
    const bird = importBird({
      questions: file('bird-sample/dev.json'),
      pred: text('predict_dev.json', '["SELECT 1"]'),
      databases: folder,
    });
    expect(errors(bird.problems)).toEqual([
      'predict_dev.json:1: error [not_a_mapping]: A BIRD predictions file is an object {"0": "SQL\\t----- bird -----\\tdb_id", ...}.',
    ]);
    const birdDev = importBird({ questions: text('dev.json', '{}'), databases: folder });
    expect(errors(birdDev.problems)).toEqual([
      'dev.json:1: error [not_a_mapping]: BIRD dev.json is a list of {question_id, db_id, question, evidence, SQL, difficulty} objects.',
    ]);
  });
});

describe('defog-style CSV', () => {
  it('expands {a, b} alternatives as sql-eval does, and ; alternatives', () => {
    expect(expandAlternatives('SELECT {id, name} FROM t')).toEqual([
      'SELECT id FROM t',
      'SELECT name FROM t',
      'SELECT id, name FROM t',
    ]);
    expect(expandAlternatives('SELECT {COUNT(a), SUM(b)} FROM t;SELECT 1')).toEqual([
      'SELECT COUNT(a) FROM t',
      'SELECT SUM(b) FROM t',
      'SELECT COUNT(a), SUM(b) FROM t',
      'SELECT 1',
    ]);
    expect(expandAlternatives('SELECT {a, b, c, d, e, f, g} FROM t', 64)).toBeNull(); // 127 combinations
  });

  it("parses quoted fields with commas, quotes and newlines, and keeps each record's line", () => {
    expect(parseCsv('a,b\n"x, ""y""","multi\nline"\nz,w\n').rows).toEqual([
      { cells: ['a', 'b'], line: 1 },
      { cells: ['x, "y"', 'multi\nline'], line: 2 },
      { cells: ['z', 'w'], line: 4 },
    ]);
  });

  it('imports questions and predictions; misaligned rows, unknown db_name and a missing database file name file, line and field', () => {
    const r = importCsv({
      questions: file('defog-sample/questions.csv'),
      pred: file('defog-sample/predictions.csv'),
      databases: folder,
    });
    expect(errors(r.problems)).toEqual([]);
    expect(r.ok && r.imported.corpus.cases[1]!.reference_sql).toEqual([
      "SELECT id FROM customers WHERE segment = 'retail'",
      "SELECT name FROM customers WHERE segment = 'retail'",
      "SELECT id, name FROM customers WHERE segment = 'retail'",
    ]);
    expect(r.ok && r.imported.corpus.cases[2]!.evidence).toBe("paid means status = 'paid'");
    const short = importCsv({
      questions: file('defog-sample/questions.csv'),
      pred: text('predictions.csv', 'question,generated_query\nq,SELECT 1\n'),
    });
    expect(errors(short.problems)).toEqual([
      "predictions.csv:3: error [count_mismatch] field 'generated_query': predictions.csv has 1 prediction row(s); questions.csv has 4 question row(s): they are matched by row.",
    ]);
    const unknown = importCsv({
      questions: text('q.csv', 'question,query,db_name\nHow many?,SELECT 1,shop\nAnd?,SELECT 2,nowhere\n'),
      databases: folder,
    });
    expect(errors(unknown.problems)).toEqual([
      "q.csv:3: error [unknown_fixture] case 'q0001' field 'db_name': Unknown db_id 'nowhere': dev_databases has no nowhere/nowhere.sqlite.",
    ]);
    const missing = importCsv({
      questions: text('q.csv', 'question,query,db_name\nHow many?,SELECT 1,empty_db\n'),
      databases: folder,
    });
    expect(errors(missing.problems)).toEqual([
      expect.stringMatching(
        /^q\.csv:2: error \[missing_database\] case 'q0000' field 'db_name': The database folder dev_databases\/empty_db has no empty_db\.sqlite/,
      ),
    ]);
  });
});

describe('corpus: several references, per-case config, evidence', () => {
  const corpus = (cases: string) => `corpus: c\nversion: 1\nengine: sqlite\ncases:\n${cases}`;
  it('loads reference_sql as a list (primary first), a config override and evidence', async () => {
    const r = await loadCorpus(
      new TextEncoder().encode(
        corpus(
          `  - id: a\n    fixture: shop\n    question: Q?\n    evidence: E\n    reference_sql: [SELECT 1, SELECT 2]\n    shape: rows\n    config: {require_column_name_match: true, query_timeout_ms: 900}\n`,
        ),
      ),
      { file: 'c.yaml' },
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.loaded.corpus.cases[0]).toMatchObject({
      referenceSql: 'SELECT 1',
      alternativeSql: ['SELECT 2'],
      evidence: 'E',
      config: { require_column_name_match: true, query_timeout_ms: 900 },
    });
  });

  it('names the case and field of a bad override; the override is part of the corpus stamp', async () => {
    const bad = await loadCorpus(
      new TextEncoder().encode(
        corpus(
          `  - id: a\n    fixture: shop\n    question: Q?\n    reference_sql: SELECT 1\n    shape: rows\n    config: {strict_names: true}\n`,
        ),
      ),
      { file: 'c.yaml' },
    );
    expect(bad.problems.map(formatProblem)).toEqual([
      expect.stringMatching(
        /^c\.yaml:10:13: error \[invalid_field\] case 'a' field 'config': config: Invalid comparison config: unknown option "strict_names"/,
      ),
    ]);
    const base = `  - id: a\n    fixture: shop\n    question: Q?\n    reference_sql: SELECT 1\n    shape: rows\n`;
    const plain = await loadCorpus(new TextEncoder().encode(corpus(base)), { file: 'c.yaml' });
    const strict = await loadCorpus(
      new TextEncoder().encode(corpus(`${base}    config: {require_column_order_match: true}\n`)),
      { file: 'c.yaml' },
    );
    expect(plain.ok && strict.ok && plain.loaded.sha256 !== strict.loaded.sha256).toBe(true);
  });
});
