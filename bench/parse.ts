/**
 * CPU of parseSql over every distinct Spider dev text (gold and predicted),
 * single thread: the first pass in a fresh process (cold) and the best of the
 * next seven (warm), the parse cache cleared before each pass. `--path
 * grammars` runs the node-sql-parser path alone (what parseSql did before the
 * fast reader), `--path fast` parseSql as it is. One path per process, so the
 * cold figure is cold:
 *
 *   node --import tsx bench/parse.ts --path grammars --dialect sqlite
 *   node --import tsx bench/parse.ts --path fast --dialect sqlite
 *
 * Input: SPIDER_DEV_DIR, else ../shared/data/spider-dev.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseFastOnly, parseSql, parseWithGrammars } from '../src/core/structure/parse.ts';
import { clearParseCache } from '../src/core/structure/memo.ts';
import type { Dialect } from '../src/core/structure/grammar.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const spider = process.env.SPIDER_DEV_DIR ?? path.resolve(here, '../../shared/data/spider-dev');
const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : fallback;
};
const dialect = arg('dialect', 'sqlite') as Dialect;
const which = arg('path', 'fast');
const parse = which === 'grammars' ? parseWithGrammars : parseSql;

const texts = new Set<string>();
for (const line of readFileSync(path.join(spider, 'pairs.jsonl'), 'utf8').split('\n')) {
  if (!line.trim()) continue;
  const pair = JSON.parse(line) as { gold_sql?: unknown; pred_sql?: unknown };
  for (const sql of [pair.gold_sql, pair.pred_sql]) if (typeof sql === 'string') texts.add(sql);
}

const cpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
const passes: number[] = [];
for (let p = 0; p < 8; p++) {
  clearParseCache();
  const t0 = cpuMs();
  for (const sql of texts) parse(sql, dialect);
  passes.push(cpuMs() - t0);
}
let answered = 0;
for (const sql of texts) if (parseFastOnly(sql, dialect)) answered++;
const warm = Math.min(...passes.slice(1));
console.log(
  `${which} ${dialect}: ${texts.size} texts, cold ${passes[0]!.toFixed(0)} ms, warm ${warm.toFixed(0)} ms ` +
    `(${((1000 * warm) / texts.size).toFixed(1)} µs a text); the reader answers ${answered} (${((100 * answered) / texts.size).toFixed(1)}%)`,
);
