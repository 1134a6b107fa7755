/**
 * A benchmark folder as the app gets it from a drop or a folder picker: which
 * file is the gold, the questions, the predictions and the databases, told
 * from names and first bytes; files inside a database's own folder are not
 * benchmark files.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectBenchmarkFolder, type FolderFile } from '../../src/core/import/folder.ts';
import { importSpider } from '../../src/core/import/spider.ts';
import { repoRoot } from '../helpers/paths.ts';

const samples = path.join(repoRoot, 'fixtures', 'benchmarks');

/** Every file under a sample folder, with its path as a folder drop gives it (the folder's name first). */
function folderFiles(name: string): FolderFile[] {
  const out: FolderFile[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir).sort()) {
      const full = path.join(dir, entry);
      if (statSync(full).isDirectory()) walk(full);
      else
        out.push({
          path: path.relative(samples, full).split(path.sep).join('/'),
          bytes: new Uint8Array(readFileSync(full)),
        });
    }
  };
  walk(path.join(samples, name));
  return out;
}

const text = (p: string, content: string): FolderFile => ({ path: p, bytes: new TextEncoder().encode(content) });

describe('detectBenchmarkFolder', () => {
  it('takes a Spider folder apart: gold, predictions, database/<db>/<db>.sqlite; schema.sql beside a database is not the gold', () => {
    const files = [
      ...folderFiles('spider-sample'),
      text('spider-sample/database/shop/schema.sql', 'CREATE TABLE t (a INT);\n'),
      text('spider-sample/README.txt', 'notes'),
    ];
    const d = detectBenchmarkFolder(files);
    expect(d.kind).toBe('benchmark');
    if (d.kind !== 'benchmark') return;
    expect(d.folder.format).toBe('spider');
    expect(d.folder.gold?.file).toBe('spider-sample/dev_gold.sql');
    expect(d.folder.pred?.file).toBe('spider-sample/pred.txt');
    expect(d.folder.questions).toBeUndefined();
    expect(d.folder.databases).toEqual({ dir: 'spider-sample/database', ids: ['school', 'shop'] });
    expect(Object.keys(d.folder.databaseFiles).sort()).toEqual(['school', 'shop']);
    expect(d.folder.roles.map((r) => r.role)).toEqual(['gold', 'predictions', 'database', 'database']);
  });

  it('takes a BIRD folder apart: dev.json, predict_dev.json, dev_databases/; database_description CSVs are ignored', () => {
    const files = [
      ...folderFiles('bird-sample'),
      text(
        'bird-sample/dev_databases/shop/database_description/customers.csv',
        'original_column_name,column_description\nid,the id\n',
      ),
    ];
    const d = detectBenchmarkFolder(files);
    expect(d.kind).toBe('benchmark');
    if (d.kind !== 'benchmark') return;
    expect(d.folder.format).toBe('bird');
    expect(d.folder.questions?.file).toBe('bird-sample/dev.json');
    expect(d.folder.pred?.file).toBe('bird-sample/predict_dev.json');
    expect(d.folder.databases.ids).toEqual(['school', 'shop']);
  });

  it('works on flat files too (a drop of the files themselves): databases by file name', () => {
    const flat = folderFiles('spider-sample').map((f) => ({ ...f, path: f.path.split('/').pop()! }));
    const d = detectBenchmarkFolder(flat);
    expect(d.kind === 'benchmark' && d.folder.databases.ids).toEqual(['school', 'shop']);
  });

  it('says what is missing or ambiguous, and leaves native files alone', () => {
    const noPred = folderFiles('spider-sample').filter((f) => !f.path.endsWith('pred.txt'));
    const missing = detectBenchmarkFolder(noPred);
    expect(missing.kind === 'problem' && missing.message).toMatch(/dev_gold\.sql but no predictions file/);
    const two = detectBenchmarkFolder([...folderFiles('spider-sample'), text('spider-sample/other.txt', 'SELECT 1\n')]);
    expect(two.kind === 'problem' && two.message).toMatch(/Several Spider predictions.*pred\.txt.*other\.txt/);
    const birdNoPred = detectBenchmarkFolder(folderFiles('bird-sample').filter((f) => !f.path.includes('predict_')));
    expect(birdNoPred.kind === 'problem' && birdNoPred.message).toMatch(/no predictions file: add predict_dev\.json/);
    expect(
      detectBenchmarkFolder([
        text('corpus.yaml', 'corpus: x\n'),
        text('run.jsonl', '{"id":"a","sql":"SELECT 1"}\n'),
        text('shop.sql', 'CREATE TABLE t (a INT);\n'),
      ]).kind,
    ).toBe('none');
  });
  it('a database file that is empty, not SQLite or cut short is named before grading, with the reason', () => {
    const sample = folderFiles('spider-sample');
    const shop = sample.find((f) => f.path.endsWith('shop.sqlite'))!;
    const withShop = (bytes: Uint8Array) => sample.map((f) => (f.path.endsWith('shop.sqlite') ? { ...f, bytes } : f));
    const cases: [Uint8Array, RegExp][] = [
      // Before: an empty shop.sqlite was dropped from the folder unseen ("spider-sample/database has no shop/shop.sqlite",
      // though it has), and a cut copy went on to grading, where it failed the whole run.
      [new Uint8Array(0), /shop\.sqlite is empty \(0 bytes\), not a SQLite database/],
      [
        new TextEncoder().encode('version https://git-lfs.github.com/spec/v1\n'),
        /shop\.sqlite is not a SQLite database \(a Git LFS pointer/,
      ],
      [
        new TextEncoder().encode('PK\u0003\u0004 not a database'),
        /shop\.sqlite is not a SQLite database \(it does not start with "SQLite format 3"\)/,
      ],
      [
        shop.bytes.subarray(0, Math.floor(shop.bytes.length / 2)),
        /shop\.sqlite is cut short: \d+ bytes of the \d+ its header declares/,
      ],
    ];
    for (const [bytes, why] of cases) {
      const d = detectBenchmarkFolder(withShop(bytes));
      expect(d.kind).toBe('benchmark');
      if (d.kind !== 'benchmark') return;
      expect(d.folder.databases.ids).toEqual(['school']);
      expect(d.folder.databaseFiles.shop).toBeUndefined();
      const imported = importSpider({ gold: d.folder.gold!, pred: d.folder.pred!, databases: d.folder.databases });
      const problem = imported.problems.find((p) => p.severity === 'error');
      expect(problem?.code).toBe('missing_database');
      expect(problem?.file).toBe('spider-sample/dev_gold.sql');
      expect(problem?.line).toBeGreaterThan(0);
      expect(problem?.message).toMatch(why);
      expect(problem?.message).toContain('spider-sample/database/shop/shop.sqlite');
    }
    // The whole file is still a database.
    const whole = detectBenchmarkFolder(withShop(shop.bytes));
    expect(whole.kind === 'benchmark' && whole.folder.databases.notDatabase).toBeFalsy();
  });

  it('takes a defog-style CSV benchmark apart: questions CSV, predictions CSV, databases by name; a table CSV stays a fixture', () => {
    const shop = folderFiles('bird-sample').find((f) => f.path.endsWith('shop.sqlite'))!;
    const files = [...folderFiles('defog-sample'), { ...shop, path: 'defog-sample/shop.sqlite' }];
    const d = detectBenchmarkFolder(files);
    expect(d.kind).toBe('benchmark');
    if (d.kind !== 'benchmark') return;
    expect(d.folder.format).toBe('csv');
    expect(d.folder.questions?.file).toBe('defog-sample/questions.csv');
    expect(d.folder.pred?.file).toBe('defog-sample/predictions.csv');
    expect(d.folder.databases.ids).toEqual(['shop']);
    expect(d.folder.roles.map((r) => r.role)).toEqual(['questions', 'predictions', 'database']);
    // The predictions in the questions CSV itself (sql-eval's generated_query column): no second file needed.
    const inline = detectBenchmarkFolder([
      text('q.csv', 'question,query,db_name,generated_query\nQ,SELECT 1,shop,SELECT 1\n'),
    ]);
    expect(inline.kind === 'benchmark' && inline.folder.pred).toBeUndefined();
    const noPred = detectBenchmarkFolder(folderFiles('defog-sample').filter((f) => f.path.endsWith('questions.csv')));
    expect(noPred.kind === 'problem' && noPred.message).toMatch(
      /questions\.csv but no predictions: add a CSV with a generated_query column/,
    );
    expect(detectBenchmarkFolder([text('customers.csv', 'id,name,query\n1,a,b\n')]).kind).toBe('none');
    expect(
      detectBenchmarkFolder(folderFiles('defog-sample').filter((f) => f.path.endsWith('predictions.csv'))).kind,
    ).toBe('none');
  });
});
