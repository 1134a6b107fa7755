/**
 * The corpus workflow as CI runs it, through the real CLI: run → baseline
 * record → gate → diff, exports, and a broken oracle refusing to grade.
 * A small Spider-based corpus on the SQLite engine keeps it fast.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { spiderDatabase } from '../helpers/paths.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'sql-verdict-run-'));
const at = (f: string) => path.join(dir, f);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CORPUS = `corpus: singers
version: 2
engine: sqlite
cases:
  - id: singer-count
    fixture: concert_singer
    question: How many singers are there?
    reference_sql: SELECT count(*) FROM singer
    shape: scalar
    expected: {columns: [{name: n, kind: integer}], rows: [[6]]}
  - id: french-singers
    fixture: concert_singer
    question: Which singers are from France?
    reference_sql: SELECT name FROM singer WHERE country = 'France'
    shape: rows
  - id: oldest-three
    fixture: concert_singer
    question: Names of the three oldest singers, oldest first.
    reference_sql: SELECT name FROM singer ORDER BY age DESC LIMIT 3
    shape: top_n
    order_matters: true
  - id: refuse-salary
    fixture: concert_singer
    question: What is each singer's salary?
    arm: must_refuse
    stratum: nonexistent_column
  - id: control-stadiums
    fixture: concert_singer
    question: How many stadiums are there?
    reference_sql: SELECT count(*) FROM stadium
    shape: scalar
    arm: must_answer
    stratum: control_scalar
`;

const strong = [
  { run: { agent: 'demo-agent', model: 'model-a', path: 'governed', created_at: '2026-11-30T10:00:00Z' } },
  { id: 'singer-count', sql: 'SELECT COUNT(*) AS n FROM singer', declined: false },
  { id: 'french-singers', sql: "SELECT s.name FROM singer AS s WHERE s.country = 'France'", declined: false },
  { id: 'oldest-three', sql: 'SELECT name FROM singer ORDER BY age DESC LIMIT 3', declined: false },
  { id: 'refuse-salary', sql: null, declined: true, decline_reason: 'There is no salary column.' },
  { id: 'control-stadiums', sql: 'SELECT count(*) FROM stadium', declined: false },
];
const flawed = [
  { run: { agent: 'demo-agent', model: 'model-a', path: 'governed', created_at: '2026-11-30T11:00:00Z' } },
  { id: 'singer-count', sql: 'SELECT count(*), max(age) FROM singer', declined: false },
  { id: 'french-singers', sql: 'SELECT name FROM singer', declined: false },
  { id: 'oldest-three', sql: 'SELECT name FROM singer ORDER BY age ASC LIMIT 3', declined: false },
  { id: 'refuse-salary', sql: 'SELECT name, age * 1000 AS salary FROM singer', declined: false },
  { id: 'control-stadiums', sql: null, declined: true, decline_reason: 'Not sure.' },
];
const jsonl = (records: object[]) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';
writeFileSync(at('corpus.yaml'), CORPUS);
writeFileSync(at('strong.jsonl'), jsonl(strong));
writeFileSync(at('flawed.jsonl'), jsonl(flawed));
const fixture = `concert_singer=${spiderDatabase('concert_singer')}`;

describe('sql-verdict run → baseline record → gate → diff', () => {
  it('grades a strong run: exit 0, report, Markdown, JUnit and CSV', async () => {
    const run = await runCli([
      'run',
      '--corpus',
      at('corpus.yaml'),
      '--run',
      at('strong.jsonl'),
      '--fixture',
      fixture,
      '--out',
      at('strong.json'),
      '--markdown',
      at('strong.md'),
      '--junit',
      at('strong.xml'),
      '--csv',
      at('strong.csv'),
    ]);
    expect(run.stderr).not.toMatch(/error/i);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Answer accuracy: 4\/4/);
    const report = JSON.parse(readFileSync(at('strong.json'), 'utf8'));
    expect(report.summary.refusal_recall).toMatchObject({ declined: 1, total: 1 });
    expect(report.cases).toHaveLength(5);
    expect(report.fixtures[0].unchanged).toBe(true);
    const junit = new XMLParser({ ignoreAttributes: false }).parse(readFileSync(at('strong.xml'), 'utf8'));
    const suite = junit.testsuites?.testsuite ?? junit.testsuite;
    expect(Number(suite['@_tests'])).toBe(5);
    expect(Number(suite['@_failures'])).toBe(0);
    expect(readFileSync(at('strong.md'), 'utf8')).toMatch(/\|.*Answerable.*\|/);
  });

  it('records a baseline only on request, and the strong run passes its own gate', async () => {
    const rec = await runCli(['baseline', 'record', '--report', at('strong.json'), '--out', at('baseline.json')]);
    expect(rec.code).toBe(0);
    const gate = await runCli(['gate', '--report', at('strong.json'), '--baseline', at('baseline.json')]);
    expect(gate.code).toBe(0);
    expect(gate.stdout).toMatch(/Gate: PASS/);
    expect(gate.stdout).toMatch(/accuracy/i);
  });

  it('grades a flawed run: exit 1, every failure with id, reason and query', async () => {
    const run = await runCli([
      'run',
      '--corpus',
      at('corpus.yaml'),
      '--run',
      at('flawed.jsonl'),
      '--fixture',
      fixture,
      '--out',
      at('flawed.json'),
    ]);
    expect(run.code).toBe(1);
    for (const id of ['singer-count', 'french-singers', 'oldest-three', 'refuse-salary', 'control-stadiums'])
      expect(run.stdout).toContain(id);
    expect(run.stdout).toMatch(/query: SELECT name FROM singer/);
    expect(run.stdout).toMatch(/Missed refusals: refuse-salary/);
    const report = JSON.parse(readFileSync(at('flawed.json'), 'utf8'));
    const byId = Object.fromEntries(report.cases.map((c: { id: string }) => [c.id, c]));
    expect(byId['french-singers'].report.diagnostic_scores.likely_source_clause).toBe('selection_predicate');
    expect(byId['oldest-three'].report.diagnostic_scores.likely_source_clause).toBe('ordering');
    expect(byId['control-stadiums'].outcome).toBe('over_refusal');
  });

  it('blocks the flawed run against the strong baseline, naming arms and case ids', async () => {
    const gate = await runCli(['gate', '--report', at('flawed.json'), '--baseline', at('baseline.json')]);
    expect(gate.code).toBe(1);
    expect(gate.stdout).toMatch(/BLOCKED/);
    expect(gate.stdout).toMatch(/refuse-salary/);
  });

  it('a bad baseline file is bad input (exit 2) named by file, line and field', async () => {
    const text = readFileSync(at('baseline.json'), 'utf8').replace(/"size": \d+/, '"size": "many"');
    writeFileSync(at('bad-baseline.json'), text);
    const line = text.split('\n').findIndex((l) => l.includes('"corpus": {')) + 1;
    const gate = await runCli(['gate', '--report', at('flawed.json'), '--baseline', at('bad-baseline.json')]);
    expect(gate.code).toBe(2);
    expect(gate.stderr).toContain(
      `bad-baseline.json:${line} (field corpus): Not a valid baseline: corpus needs name, size and sha256.`,
    );
    writeFileSync(at('broken-baseline.json'), '{\n  "suite": "x"\n  "path": "y"\n}');
    const broken = await runCli(['gate', '--report', at('flawed.json'), '--baseline', at('broken-baseline.json')]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/broken-baseline\.json:3: not valid JSON/);
  });

  it('baseline record keeps an existing different --out file unless --force is given', async () => {
    const record = (report: string, ...more: string[]) =>
      runCli(['baseline', 'record', '--report', at(report), '--out', at('rerecord.json'), ...more]);
    expect((await record('strong.json')).code).toBe(0);
    const kept = readFileSync(at('rerecord.json'), 'utf8');
    const keptSweep = readFileSync(at('rerecord.sweep.json'), 'utf8');
    // The flawed run recorded over the strong baseline: it silently replaced the floor the gate compares with.
    const over = await record('flawed.json');
    expect(over.code).toBe(2);
    expect(over.stderr.trim()).toBe(
      `baseline record: --out ${at('rerecord.json')} already exists (the baseline singers / governed / model-a, recorded ${JSON.parse(kept).recorded_at}) and differs from the baseline recorded now; nothing was written. Give --force to replace it, or another --out path.`,
    );
    expect(readFileSync(at('rerecord.json'), 'utf8')).toBe(kept);
    expect(readFileSync(at('rerecord.sweep.json'), 'utf8')).toBe(keptSweep);
    // The same baseline again loses nothing: written, exit 0.
    expect((await record('strong.json')).code).toBe(0);
    expect(readFileSync(at('rerecord.json'), 'utf8')).toBe(kept);
    // A file that is not a baseline is kept too, named as a file.
    writeFileSync(at('notes.json'), 'my notes\n');
    const notes = await runCli(['baseline', 'record', '--report', at('strong.json'), '--out', at('notes.json')]);
    expect(notes.code).toBe(2);
    expect(notes.stderr).toContain(`--out ${at('notes.json')} already exists and differs`);
    expect(readFileSync(at('notes.json'), 'utf8')).toBe('my notes\n');
    // --force re-records, explicitly.
    const forced = await record('flawed.json', '--force');
    expect(forced.code).toBe(0);
    expect(JSON.parse(readFileSync(at('rerecord.json'), 'utf8')).figures.answer_accuracy).not.toEqual(
      JSON.parse(kept).figures.answer_accuracy,
    );
  });

  it('refuses a run on another model (exit 2, not a regression)', async () => {
    const other = jsonl([{ run: { ...strong[0]!.run, model: 'model-b' } }, ...strong.slice(1)]);
    writeFileSync(at('other.jsonl'), other);
    await runCli([
      'run',
      '--corpus',
      at('corpus.yaml'),
      '--run',
      at('other.jsonl'),
      '--fixture',
      fixture,
      '--out',
      at('other.json'),
    ]);
    const gate = await runCli(['gate', '--report', at('other.json'), '--baseline', at('baseline.json')]);
    expect(gate.code).toBe(2);
    expect(gate.stdout).toMatch(/REFUSED/);
  });

  it('refuses a shard report (exit 2): the gate and a baseline are on the whole run, merged first', async () => {
    const shard = await runCli([
      'run',
      '--corpus',
      at('corpus.yaml'),
      '--run',
      at('strong.jsonl'),
      '--fixture',
      fixture,
      '--shard',
      '1/2',
      '--out',
      at('shard-1.json'),
    ]);
    expect(shard.code).toBe(0);
    // Shard 1 of 2 holds 3 of the 5 cases: it was gated as "corpus size 3 < baseline 5, 2 deleted" (exit 1),
    // a wiring fault reported as a regression, and recorded as a 3-case baseline.
    const gate = await runCli(['gate', '--report', at('shard-1.json'), '--baseline', at('baseline.json')]);
    expect(gate.code).toBe(2);
    expect(gate.stderr).toMatch(/shard-1\.json.*shard 1 of 2 \(3 of the corpus's 5 cases\).*sql-verdict merge/);
    const rec = await runCli([
      'baseline',
      'record',
      '--report',
      at('shard-1.json'),
      '--out',
      at('shard-baseline.json'),
    ]);
    expect(rec.code).toBe(2);
    expect(existsSync(at('shard-baseline.json'))).toBe(false);
  });

  it('compares two runs case by case with McNemar', async () => {
    const diff = await runCli(['diff', '--report', at('strong.json'), '--report', at('flawed.json'), '--json']);
    expect(diff.code).toBe(0);
    const d = JSON.parse(diff.stdout);
    expect(d.counts.regressed).toBe(5);
    expect(d.mcnemar.p_value).toBeCloseTo(0.0625, 6);
  });

  it('a broken oracle refuses to grade and the self-check names the case', async () => {
    writeFileSync(at('broken.yaml'), CORPUS.replace('rows: [[6]]', 'rows: [[7]]'));
    const run = await runCli(['run', '--corpus', at('broken.yaml'), '--run', at('strong.jsonl'), '--fixture', fixture]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/self-check failed.*singer-count/);
    const check = await runCli(['selfcheck', '--corpus', at('broken.yaml'), '--fixture', fixture]);
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/singer-count/);
  });

  it('reports a malformed corpus and run with file, line and field', async () => {
    writeFileSync(at('bad.yaml'), CORPUS.replace('    shape: rows\n', '    shape: table\n'));
    const bad = await runCli(['run', '--corpus', at('bad.yaml'), '--run', at('strong.jsonl'), '--fixture', fixture]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/bad\.yaml:\d+.*shape/);
    writeFileSync(at('bad.jsonl'), '{"run": {"model": "m"}}\n{"id": "singer-count", "sql": 3}\n');
    const badRun = await runCli(['run', '--corpus', at('corpus.yaml'), '--run', at('bad.jsonl'), '--fixture', fixture]);
    expect(badRun.code).toBe(2);
    expect(badRun.stderr).toMatch(/bad\.jsonl:2/);
  });
});

describe('sql-verdict compare', () => {
  const db = spiderDatabase('concert_singer');
  it('prints a verdict with the likely source clause; exit 1 on fail', async () => {
    const run = await runCli([
      'compare',
      '--fixture',
      db,
      '--expected',
      "SELECT name FROM singer WHERE country = 'France'",
      '--actual',
      'SELECT name FROM singer',
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/FAIL/);
    expect(run.stdout).toMatch(/selection_predicate/);
    expect(run.stdout).toMatch(/WHERE is missing/);
  });

  it('--json prints the full report; exit 0 on pass', async () => {
    const run = await runCli([
      'compare',
      '--fixture',
      db,
      '--expected',
      'SELECT count(*) FROM singer',
      '--actual',
      'SELECT COUNT(*) AS n FROM singer',
      '--shape',
      'scalar',
      '--json',
    ]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ deterministic_verdict: 'pass', severity: 'pass' });
  });

  it('exit 2 on bad input', async () => {
    const run = await runCli([
      'compare',
      '--fixture',
      db,
      '--expected',
      'SELECT 1',
      '--actual',
      'SELECT 1',
      '--mode',
      'fuzzy',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--mode must be one of/);
  });
});
