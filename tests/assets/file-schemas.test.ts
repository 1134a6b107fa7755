/**
 * The JSON Schemas of the file formats in docs/ (corpus, run file, STEF log line, baseline) compile
 * under ajv's strict mode, accept every real file of that format in the repository, and are strict
 * below the top level: a mistyped or unknown nested field does not validate.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { BASELINE_SCHEMA } from '../../src/core/gate/schema.ts';
import { repoRoot } from '../helpers/paths.ts';

const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
const schema = (name: string) => JSON.parse(readFileSync(path.join(repoRoot, 'docs', `${name}.schema.json`), 'utf8')) as { $id: string };
const corpusSchema = schema('corpus');
const runSchema = schema('run');
const validateCorpus = ajv.compile(corpusSchema);
const validateRun = ajv.compile(runSchema);
const validateRecord = ajv.getSchema(`${runSchema.$id}#/$defs/record`)!;
const validateHeader = ajv.getSchema(`${runSchema.$id}#/$defs/header`)!;
const validateLogLine = ajv.compile(schema('stef-log'));
const errors = (v: { errors?: unknown }) => JSON.stringify(v.errors);
const files = (dir: string, re: RegExp) => readdirSync(path.join(repoRoot, dir)).filter((f) => re.test(f)).map((f) => path.join(repoRoot, dir, f));
const jsonLines = (file: string) => readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Record<string, unknown>);

describe('docs/corpus.schema.json', () => {
  const corpora = files('fixtures/corpora', /\.ya?ml$/);
  it('accepts every built-in corpus', () => {
    expect(corpora.length).toBeGreaterThan(1);
    for (const f of corpora) expect(validateCorpus(parseYaml(readFileSync(f, 'utf8'))), `${f}: ${errors(validateCorpus)}`).toBe(true);
  });
  it('is strict below the top level', () => {
    const doc = parseYaml(readFileSync(corpora[0]!, 'utf8')) as { cases: Record<string, unknown>[] };
    const withCase = (change: Record<string, unknown>) => ({ ...doc, cases: [{ ...doc.cases[0], ...change }, ...doc.cases.slice(1)] });
    expect(validateCorpus(withCase({ order_matters: 'yes' }))).toBe(false);
    expect(validateCorpus(withCase({ refrence_sql: 'SELECT 1' }))).toBe(false);
    expect(validateCorpus(withCase({ shape: 'table' }))).toBe(false);
    expect(validateCorpus(withCase({ expected: { columns: [{ name: 'n', kind: 'money' }], rows: [] } }))).toBe(false);
    expect(validateCorpus(withCase({ expected: { columns: [{ name: 'n', kind: 'integer' }], rows: [], extra: 1 } }))).toBe(false);
  });
});

describe('docs/run.schema.json', () => {
  it('accepts every sample run: JSON files whole, JSONL line by line', () => {
    const json = [...files('fixtures/runs', /\.json$/), path.join(repoRoot, 'src/ui/assets/demo-flawed.run.json')];
    for (const f of json) expect(validateRun(JSON.parse(readFileSync(f, 'utf8'))), `${f}: ${errors(validateRun)}`).toBe(true);
    const jsonl = files('fixtures/runs', /\.jsonl$/);
    expect(jsonl.length).toBeGreaterThan(0);
    for (const f of jsonl)
      for (const [i, line] of jsonLines(f).entries()) {
        const v = 'run' in line ? validateHeader : validateRecord;
        expect(v(line), `${f}:${i + 1}: ${errors(v)}`).toBe(true);
      }
  });
  it('is strict below the top level', () => {
    expect(validateRun({ records: [{ id: 'a', sql: 'SELECT 1', declined: 'no' }] })).toBe(false);
    expect(validateRun({ records: [{ id: 'a', sqll: 'SELECT 1' }] })).toBe(false);
    expect(validateRun({ run: { model: 3 }, records: [] })).toBe(false);
    expect(validateRun({ run: { corpus_sha256: 'abc' }, records: [] })).toBe(false);
  });
});

describe('docs/stef-log.schema.json', () => {
  it('accepts every line of the sample production log, and refuses mistyped fields', () => {
    const lines = jsonLines(path.join(repoRoot, 'fixtures/stef/production-log.jsonl'));
    expect(lines.length).toBeGreaterThan(5);
    for (const [i, line] of lines.entries()) expect(validateLogLine(line), `line ${i + 1}: ${errors(validateLogLine)}`).toBe(true);
    expect(validateLogLine({ ...lines[0], sql: 3 })).toBe(false);
    const { question: _q, ...noQuestion } = lines[0]!;
    expect(validateLogLine(noQuestion)).toBe(false);
  });
});

describe('docs/baseline.schema.json', () => {
  it('is the schema the gate validates baselines with', () => {
    expect(schema('baseline')).toEqual(JSON.parse(JSON.stringify(BASELINE_SCHEMA)));
  });
});
