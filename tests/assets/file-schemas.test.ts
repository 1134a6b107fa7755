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
const schema = (name: string) =>
  JSON.parse(readFileSync(path.join(repoRoot, 'docs', `${name}.schema.json`), 'utf8')) as { $id: string };
const corpusSchema = schema('corpus');
const runSchema = schema('run');
const validateCorpus = ajv.compile(corpusSchema);
const validateRun = ajv.compile(runSchema);
const validateRecord = ajv.getSchema(`${runSchema.$id}#/$defs/record`)!;
const validateHeader = ajv.getSchema(`${runSchema.$id}#/$defs/header`)!;
const validateLogLine = ajv.compile(schema('stef-log'));
const errors = (v: { errors?: unknown }) => JSON.stringify(v.errors);
const files = (dir: string, re: RegExp) =>
  readdirSync(path.join(repoRoot, dir))
    .filter((f) => re.test(f))
    .map((f) => path.join(repoRoot, dir, f));
const jsonLines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('docs/corpus.schema.json', () => {
  const corpora = files('fixtures/corpora', /\.ya?ml$/);
  it('accepts every built-in corpus', () => {
    expect(corpora.length).toBeGreaterThan(1);
    for (const f of corpora)
      expect(validateCorpus(parseYaml(readFileSync(f, 'utf8'))), `${f}: ${errors(validateCorpus)}`).toBe(true);
  });
  it('is strict below the top level', () => {
    const doc = parseYaml(readFileSync(corpora[0]!, 'utf8')) as { cases: Record<string, unknown>[] };
    const withCase = (change: Record<string, unknown>) => ({
      ...doc,
      cases: [{ ...doc.cases[0], ...change }, ...doc.cases.slice(1)],
    });
    expect(validateCorpus(withCase({ order_matters: 'yes' }))).toBe(false);
    expect(validateCorpus(withCase({ refrence_sql: 'SELECT 1' }))).toBe(false);
    expect(validateCorpus(withCase({ shape: 'table' }))).toBe(false);
    expect(validateCorpus(withCase({ expected: { columns: [{ name: 'n', kind: 'money' }], rows: [] } }))).toBe(false);
    expect(
      validateCorpus(withCase({ expected: { columns: [{ name: 'n', kind: 'integer' }], rows: [], extra: 1 } })),
    ).toBe(false);
  });
});

describe('docs/run.schema.json', () => {
  it('accepts every sample run: JSON files whole, JSONL line by line', () => {
    const json = [...files('fixtures/runs', /\.json$/), path.join(repoRoot, 'src/ui/assets/demo-flawed.run.json')];
    for (const f of json)
      expect(validateRun(JSON.parse(readFileSync(f, 'utf8'))), `${f}: ${errors(validateRun)}`).toBe(true);
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
    for (const [i, line] of lines.entries())
      expect(validateLogLine(line), `line ${i + 1}: ${errors(validateLogLine)}`).toBe(true);
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

describe('docs/report.schema.json', () => {
  // As the pipeline tests compile it: its older parts name required keys without typing them (ajv strictRequired).
  const validateReport = new Ajv2020({ strict: false, allErrors: true }).compile(schema('report'));
  // Cases with a pipeline report (declined cases have an outcome and a reason only).
  const goldens = files('tests/golden/flawed-run', /(?<!\.actual)\.json$/).filter((f) =>
    readFileSync(f, 'utf8').includes('"report_version"'),
  );
  // The goldens mask what varies run to run ("<ms>", "<timing>"): put numbers back.
  const TIMINGS = { parse: 0, execute: 0, compare: 0, diagnose: 0, judge: 0, total: 0 };
  const readGolden = (f: string) =>
    JSON.parse(readFileSync(f, 'utf8'), (_k, v) => (v === '<ms>' ? 1 : v === '<timing>' ? TIMINGS : v)) as unknown;
  it('accepts the golden reports of the flawed run', () => {
    expect(goldens.length).toBeGreaterThan(5);
    for (const f of goldens) expect(validateReport(readGolden(f)), `${f}: ${errors(validateReport)}`).toBe(true);
  });
  it('is strict below the top level: row_overlap.f1 "x" and unknown overlap fields do not validate', () => {
    const withResult = goldens
      .map((f) => readGolden(f) as { evidence: { result: Record<string, Record<string, unknown>> | null } })
      .find((r) => r.evidence.result);
    expect(withResult).toBeTruthy();
    const mutate = (edit: (r: Record<string, Record<string, unknown>>) => void) => {
      const copy = JSON.parse(JSON.stringify(withResult)) as {
        evidence: { result: Record<string, Record<string, unknown>> };
      };
      edit(copy.evidence.result);
      return copy;
    };
    expect(validateReport(mutate((r) => (r.row_overlap!.f1 = 'x')))).toBe(false);
    expect(validateReport(mutate((r) => (r.cell_overlap!.extra = 1)))).toBe(false);
    expect(validateReport(mutate((r) => (r.cardinality_match!.pass = 'yes')))).toBe(false);
  });
});
