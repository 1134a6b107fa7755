/**
 * The fast reader (src/core/structure/reader/) is a faster implementation of
 * the same function as the node-sql-parser path: wherever it answers, its
 * ParsedSql must be the grammar path's, every field and key order included
 * (compared as JSON text). Texts: every SQL string in the repository's
 * fixtures and test data, 1,500 Spider texts (data/spider-parse-sample.json,
 * scripts/make-parse-sample.ts), generated queries (reader-gen.ts), and, when
 * present, all 8,755 distinct texts of the full Spider dev data. Each corpus
 * reports its coverage: the share of texts the reader answers.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { lexStatements } from '../../src/core/sandbox/statements.ts';
import type { Dialect } from '../../src/core/structure/index.ts';
import { parseFastOnly, parseSql, parseWithGrammars } from '../../src/core/structure/parse.ts';
import { FULL_SPIDER_SKIP, fullSpiderDir, repoRoot } from '../helpers/paths.ts';
import { selectText } from './reader-gen.ts';

const DIALECTS: Dialect[] = ['sqlite', 'duckdb'];

/** The reader's answer where it differs from the grammar path's, else null (also when it declines). */
function difference(sql: string, dialect: Dialect): string | null {
  const fast = parseFastOnly(sql, dialect);
  if (!fast) return null;
  const slow = parseWithGrammars(sql, dialect);
  const want = slow.ok ? JSON.stringify(slow.value) : `failure: ${slow.error.message}`;
  const got = JSON.stringify(fast);
  return got === want ? null : `${JSON.stringify(sql)}\n  reader:   ${got}\n  grammars: ${want}`;
}

interface Tally {
  texts: number;
  answered: number;
  differences: string[];
}

function compareAll(texts: Iterable<string>, dialect: Dialect): Tally {
  const t: Tally = { texts: 0, answered: 0, differences: [] };
  for (const sql of texts) {
    t.texts++;
    if (parseFastOnly(sql, dialect)) t.answered++;
    const d = difference(sql, dialect);
    if (d) t.differences.push(d);
  }
  return t;
}

function report(corpus: string, dialect: Dialect, t: Tally): void {
  const share = t.texts ? ((100 * t.answered) / t.texts).toFixed(1) : '0';
  console.log(
    `reader ${corpus} ${dialect}: ${t.answered} of ${t.texts} texts answered (${share}%), ${t.differences.length} differ`,
  );
}

/** Strings that mention SELECT anywhere in a parsed YAML/JSON value. */
function sqlStrings(value: unknown, out: Set<string>): void {
  if (typeof value === 'string') {
    if (/\bselect\b/i.test(value) && value.length < 20_000) out.add(value);
  } else if (Array.isArray(value)) for (const v of value) sqlStrings(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) sqlStrings(v, out);
}

/** Every SQL text of a data file: JSON/JSONL/YAML string values, .sql statements and lines (Spider's gold files). */
function collectFile(file: string, out: Set<string>): void {
  const text = readFileSync(file, 'utf8');
  if (/\.ya?ml$/.test(file)) for (const doc of YAML.parseAllDocuments(text)) sqlStrings(doc.toJS(), out);
  else if (file.endsWith('.json')) sqlStrings(JSON.parse(text), out);
  else if (file.endsWith('.jsonl'))
    for (const line of text.split('\n'))
      if (line.trim()) sqlStrings(JSON.parse(line), out);
      else if (file.endsWith('.sql')) {
        for (const s of lexStatements(text)) if (!s.empty) out.add(s.text);
        for (const line of text.split('\n')) if (/\bselect\b/i.test(line)) out.add(line.split('\t')[0]!);
      }
}

function collectTree(dir: string, out: Set<string>): void {
  for (const entry of readdirSync(dir)) {
    const p = path.join(dir, entry);
    if (statSync(p).isDirectory()) collectTree(p, out);
    else if (/\.(ya?ml|jsonl?|sql)$/.test(entry)) collectFile(p, out);
  }
}

describe('fast reader = node-sql-parser path wherever the reader answers', () => {
  const repoTexts = new Set<string>();
  collectTree(path.join(repoRoot, 'fixtures'), repoTexts);
  collectTree(path.join(repoRoot, 'tests'), repoTexts);
  const sample = JSON.parse(
    readFileSync(path.join(repoRoot, 'tests/structure/data/spider-parse-sample.json'), 'utf8'),
  ) as string[];

  for (const dialect of DIALECTS) {
    it(`${dialect}: the repository's fixtures and test data`, () => {
      const t = compareAll(repoTexts, dialect);
      report('repository', dialect, t);
      expect(t.texts).toBeGreaterThan(1000);
      expect(t.differences).toEqual([]);
    });

    it(`${dialect}: 1,500 Spider texts`, () => {
      const t = compareAll(sample, dialect);
      report('spider-sample', dialect, t);
      expect(t.texts).toBe(1500);
      expect(t.differences).toEqual([]);
      // A reader that broke would decline everything and still agree: hold its coverage.
      expect(t.answered / t.texts).toBeGreaterThan(dialect === 'sqlite' ? 0.97 : 0.92);
    });

    it(`${dialect}: generated queries`, () => {
      let answered = 0;
      let runs = 0;
      fc.assert(
        fc.property(selectText, (sql) => {
          runs++;
          if (parseFastOnly(sql, dialect)) answered++;
          const d = difference(sql, dialect);
          if (d) throw new Error(d);
        }),
        { seed: Number(process.env.READER_SEED ?? 20261203), numRuns: Number(process.env.READER_RUNS ?? 1500) },
      );
      report('generated', dialect, { texts: runs, answered, differences: [] });
      expect(answered).toBeGreaterThan(runs / 50);
    });
  }

  it('parseSql gives the same outcome whichever path answers', () => {
    for (const sql of sample.slice(0, 200))
      for (const dialect of DIALECTS)
        expect(JSON.stringify(parseSql(sql, dialect))).toBe(JSON.stringify(parseWithGrammars(sql, dialect)));
  });
});

if (!fullSpiderDir) console.warn(`skipped: ${FULL_SPIDER_SKIP}`);

describe.skipIf(!fullSpiderDir)('fast reader on all Spider dev texts (full Spider dev data)', () => {
  const texts = new Set<string>();
  if (fullSpiderDir)
    for (const line of readFileSync(path.join(fullSpiderDir, 'pairs.jsonl'), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const pair = JSON.parse(line) as { gold_sql?: unknown; pred_sql?: unknown };
      for (const sql of [pair.gold_sql, pair.pred_sql]) if (typeof sql === 'string') texts.add(sql);
    }
  for (const dialect of DIALECTS)
    it(`${dialect}: every distinct gold and predicted text`, { timeout: 600_000 }, () => {
      const t = compareAll(texts, dialect);
      report('spider-full', dialect, t);
      expect(t.differences).toEqual([]);
      expect(t.answered / t.texts).toBeGreaterThan(dialect === 'sqlite' ? 0.95 : 0.9);
    });
});
