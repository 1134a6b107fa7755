/**
 * The TypeScript port of DuckDB's tokenizer (src/engines/duckdb/scanner.ts), which native DuckDB's statement gate
 * reads instead of starting DuckDB-WASM, against DuckDB-WASM's own `tokenize()` (DuckDB v1.4.3 in both): the
 * same offsets and token types, token for token, on
 * - the repository's SQL: fixture dumps (whole and statement by statement), every string in the corpora, runs,
 *   ports and benchmark samples, the sandbox attack and clock lists, the engine contract cases, and Spider's
 *   8,003 gold and predicted queries when ../shared/data/spider-dev is present;
 * - those texts cut short and with one character inserted or removed (unterminated quotes and comments, stray
 *   escapes: where the scanner stops matters to the gate);
 * - generated texts: seeded random sequences of the pieces DuckDB's scanner treats specially (quotes of every
 *   kind, dollar tags, escapes, comments, operators, numbers, NOT/NULLS/WITH, non-ASCII text).
 * The keyword list the port is given at run time (native DuckDB's duckdb_keywords()) is DuckDB-WASM's too.
 * Also: the committed list of DuckDB-WASM's function names (what native DuckDB refuses beyond) is DuckDB-WASM's.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { DuckDBBindings } from '@duckdb/duckdb-wasm/blocking';
import { TOKEN_SENTINEL, type ScriptTokens } from '../../src/core/sandbox/calls.ts';
import { tokenizeDuckDb } from '../../src/engines/duckdb/scanner.ts';
import { nativeDuckDbProblem } from '../../src/engines/duckdb/native-available.ts';
import { WASM_FUNCTION_BUILD, WASM_FUNCTION_NAMES } from '../../src/engines/duckdb/wasm-functions.ts';
import { blockingDuckDbWasm, wasmFunctionNames } from '../../scripts/duckdb-wasm/functions.ts';
import { CLOCK, ENGINE_ATTACKS, statementAttacks } from './attacks.ts';
import { CASES } from './contract-cases.ts';
import { FULL_SPIDER_SKIP, fullSpiderDir } from '../helpers/paths.ts';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// The full Spider texts widen the scanner's comparison; without them it runs on the repository's own SQL.
const SPIDER_PAIRS = fullSpiderDir ? path.join(fullSpiderDir, 'pairs.jsonl') : null;
if (!SPIDER_PAIRS) console.warn(`the 8,003 Spider texts are skipped: ${FULL_SPIDER_SKIP}`);

let wasm: DuckDBBindings;
let wasmPackage: string;
let keywords: Set<string>;

beforeAll(async () => {
  ({ db: wasm, packageVersion: wasmPackage } = await blockingDuckDbWasm());
  const conn = wasm.connect();
  keywords = new Set(
    conn
      .query('SELECT keyword_name FROM duckdb_keywords()')
      .toArray()
      .map((r: { keyword_name: string }) => r.keyword_name),
  );
  conn.close();
});

/** Every string value in a parsed YAML/JSON document. */
function strings(value: unknown, into: Set<string>): void {
  if (typeof value === 'string') {
    if (value.trim()) into.add(value);
  } else if (Array.isArray(value)) for (const v of value) strings(v, into);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) strings(v, into);
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)],
  );
}

/** The repository's SQL texts (and Spider's, when present). */
function repositoryTexts(): Set<string> {
  const texts = new Set<string>();
  for (const file of filesUnder(path.join(repo, 'fixtures'))) {
    const text = readFileSync(file, 'utf8');
    if (file.endsWith('.sql')) {
      texts.add(text);
      for (const statement of text.split(/;\s*\n/)) texts.add(statement);
    } else if (file.endsWith('.yaml')) strings(parse(text), texts);
    else if (file.endsWith('.json')) strings(JSON.parse(text), texts);
    else if (file.endsWith('.jsonl'))
      for (const line of text.split('\n')) if (line.trim()) strings(JSON.parse(line), texts);
  }
  for (const attack of statementAttacks((name) => `/tmp/sql-verdict-scanner-test/${name}`)) texts.add(attack.sql);
  for (const list of Object.values(ENGINE_ATTACKS)) for (const attack of list) texts.add(attack.sql);
  for (const list of Object.values(CLOCK)) for (const probe of list) strings(probe, texts);
  for (const c of CASES) strings(c, texts);
  if (SPIDER_PAIRS)
    for (const line of readFileSync(SPIDER_PAIRS, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const pair = JSON.parse(line) as { gold_sql: string; pred_sql: string | null };
      texts.add(pair.gold_sql);
      if (pair.pred_sql) texts.add(pair.pred_sql);
    }
  return texts;
}

/** A seeded generator (an LCG): the same texts on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

/** Pieces DuckDB's scanner treats specially, and some ordinary ones. */
const PIECES = [
  ...`'"$EeBbXxNnUu&\\-/*\n\r \t\f\v~!@^|\`+%<>=:?#.,()[]{};01789a_`,
  'é',
  '😀',
  '\ud800',
  '\udc00',
  '\u00a0',
  ...['not ', 'NULLS ', 'with ', 'NOT', 'select ', 'nchar', 'uescape ', "'a'", '$$', '$t$', '$1', '?2'],
  ...['1.5e3', '1_000', '1..', '.5', '1e', '1e+', '--c\n', '/*', '*/', '\\u', '\\U', '\\x', '\\xff', '\\0', '\\3'],
  ...['\\351', '""', '::', '->', '->>', '**', '//', '..', ':=', '=>', '<=', '<>', '!=', "E'", 'U&', "U&'", 'U&"'],
  ...[' \n ', "'\n'", "' --c\n'", '$a$', 'x$', "b'01'"],
];

function generatedTexts(count: number, maxPieces: number, seed: number): string[] {
  const next = random(seed);
  const out: string[] = [];
  for (let n = 0; n < count; n++) {
    const pieces = 1 + Math.floor(next() * maxPieces);
    let text = '';
    for (let i = 0; i < pieces; i++) text += PIECES[Math.floor(next() * PIECES.length)]!;
    out.push(text);
  }
  return out;
}

/** A text cut short, or with one piece inserted or one character removed. */
function mutations(text: string, next: () => number): string[] {
  const at = () => Math.floor(next() * (text.length + 1));
  const i = at();
  const j = at();
  const piece = PIECES[Math.floor(next() * PIECES.length)]!;
  return [text.slice(0, i), text.slice(0, j) + piece + text.slice(j), text.slice(0, i) + text.slice(i + 1)];
}

/**
 * Texts on which the port and DuckDB-WASM disagree. Each is tokenized as the gate tokenizes it, with
 * TOKEN_SENTINEL appended: `stopped` counts those where DuckDB's scanner stopped before the end (an error).
 */
function mismatches(texts: Iterable<string>): { count: number; checked: number; stopped: number; first: string[] } {
  let count = 0;
  let checked = 0;
  let stopped = 0;
  const first: string[] = [];
  const sentinel = new TextEncoder().encode(TOKEN_SENTINEL.trim()).length;
  for (const text of texts) {
    checked++;
    const gated = text + TOKEN_SENTINEL;
    const want = wasm.tokenize(gated) as ScriptTokens;
    const got = tokenizeDuckDb(gated, keywords);
    if (want.offsets.at(-1) !== new TextEncoder().encode(gated).length - sentinel) stopped++;
    if (JSON.stringify(got) === JSON.stringify({ offsets: want.offsets, types: want.types })) continue;
    count++;
    if (first.length < 10)
      first.push(
        `${JSON.stringify(text).slice(0, 200)}\n  DuckDB: ${JSON.stringify(want)}\n  port:   ${JSON.stringify(got)}`,
      );
  }
  return { count, checked, stopped, first };
}

describe("DuckDB-WASM's function names, as native DuckDB reads them (wasm-functions.ts)", () => {
  it('are those of the pinned DuckDB-WASM (else: node --import tsx scripts/duckdb-wasm-functions.ts)', () => {
    const live = wasmFunctionNames(wasm, wasmPackage);
    expect(WASM_FUNCTION_BUILD).toBe(live.build);
    expect([...WASM_FUNCTION_NAMES].sort()).toEqual(live.names);
  });
});

describe("the TypeScript port of DuckDB's tokenizer", () => {
  it('is given the keyword list native DuckDB reports (the same as DuckDB-WASM)', async () => {
    expect(keywords.size).toBeGreaterThan(400);
    if (nativeDuckDbProblem()) return;
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    const native = (await conn.runAndReadAll('SELECT keyword_name FROM duckdb_keywords()'))
      .getRows()
      .map((r) => String(r[0]));
    conn.closeSync();
    instance.closeSync();
    expect(new Set(native)).toEqual(keywords);
  });

  it('gives DuckDB-WASM tokens on the edge cases of the scanner', () => {
    const edges = [
      'SELECT 1',
      'a -> b',
      'a->-b',
      'x ** y ***z **-w',
      'a::int:b',
      '1..2 1...2 1.e5 1.5e 1e+ .5. 1_000 1__0',
      "E'\\u0041' x",
      "E'\\x41\\101\\n\\'' x",
      "E'\\xff' x",
      "U&'a' x",
      'U&"a" x',
      'u&x',
      "NOT 'abc",
      'x NOT "',
      'NULLS /*',
      'WITH $$x',
      "'a'\n'b' c",
      "'a' \n -- c\n 'b' c",
      "'a' 'b'",
      "B'01''1' X'ff'\n'00'",
      "n'x' N'y'",
      '$$x$$ y $a$ $b$ $a$ z $1 ?1 ? # $x $',
      '$a$x$ab$y$a$ tail',
      '"" x',
      '"a""b" "select"',
      '-- c',
      'x /* y /* z */ w */ v',
      'x /*/ y */ z',
      '+--x\n1',
      '//* c */ 2',
      '@- 1 +- 2 ~- 3',
      '<=> <> != => >= :=',
      `${'+'.repeat(63)}-1`,
      `${'+'.repeat(64)} 1`,
      `${'@'.repeat(64)} 1`,
      'é x 😀y',
      'a\u0000 DROP TABLE t',
      'SELECT\u00a0now()',
    ];
    const result = mismatches(edges);
    expect(result.first).toEqual([]);
  });

  it("gives DuckDB-WASM tokens on the repository's SQL, cut short and mutated", () => {
    const texts = repositoryTexts();
    const next = random(20251203);
    const all = new Set<string>();
    for (const text of texts) {
      all.add(text);
      for (const m of mutations(text, next)) all.add(m);
    }
    const result = mismatches(all);
    expect(texts.size).toBeGreaterThan(SPIDER_PAIRS ? 5000 : 500);
    // Mutations cut quotes and comments short: many of them stop the scanner.
    expect(result.stopped).toBeGreaterThan(texts.size / 10);
    expect(result.first).toEqual([]);
    expect(result.count).toBe(0);
  });

  it('gives DuckDB-WASM tokens on generated texts', () => {
    const result = mismatches([
      ...generatedTexts(20_000, 8, 1),
      ...generatedTexts(10_000, 30, 2),
      ...generatedTexts(2_000, 120, 3),
    ]);
    expect(result.stopped).toBeGreaterThan(5000);
    expect(result.first).toEqual([]);
    expect(result.count).toBe(0);
  });
});
