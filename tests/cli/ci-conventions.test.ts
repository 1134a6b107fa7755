/**
 * CI conventions of the CLI, through the real entry point: absolute thresholds for teams without a
 * baseline, diff --fail-on-regression, "-" as stdout for output flags, JUnit with times and questions,
 * progress on stderr (a bar on a terminal, plain lines otherwise).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { progressReporter } from '../../src/cli/progress.ts';
import { checkThresholds, parseThresholds } from '../../src/cli/thresholds.ts';
import { mixCases, summary } from '../gate/build.ts';
import { runCli } from '../helpers/cli.ts';
import { repoRoot, spiderDatabase } from '../helpers/paths.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'sql-verdict-ci-'));
const at = (f: string) => path.join(dir, f);
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fixture = `concert_singer=${spiderDatabase('concert_singer')}`;

writeFileSync(
  at('corpus.yaml'),
  `corpus: singers
version: 1
engine: sqlite
cases:
  - {id: singer-count, fixture: concert_singer, question: How many singers are there?, reference_sql: SELECT count(*) FROM singer, shape: scalar}
  - {id: french-singers, fixture: concert_singer, question: Which singers are from France?, reference_sql: "SELECT name FROM singer WHERE country = 'France'", shape: rows}
  - {id: oldest-three, fixture: concert_singer, question: "Names of the three oldest singers, oldest first.", reference_sql: SELECT name FROM singer ORDER BY age DESC LIMIT 3, shape: top_n, order_matters: true}
  - {id: stadiums, fixture: concert_singer, question: How many stadiums are there?, reference_sql: SELECT count(*) FROM stadium, shape: scalar}
  - {id: refuse-salary, fixture: concert_singer, question: "What is each singer's salary?", arm: must_refuse, stratum: nonexistent_column}
`,
);
const meta = { run: { agent: 'a', model: 'm', path: 'governed', created_at: '2026-11-30T10:00:00Z' } };
const jsonl = (records: object[]) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';
const right = [
  { id: 'singer-count', sql: 'SELECT count(*) FROM singer', declined: false },
  { id: 'french-singers', sql: "SELECT name FROM singer WHERE country = 'France'", declined: false },
  { id: 'oldest-three', sql: 'SELECT name FROM singer ORDER BY age DESC LIMIT 3', declined: false },
  { id: 'stadiums', sql: 'SELECT count(*) FROM stadium', declined: false },
  { id: 'refuse-salary', sql: null, declined: true },
];
writeFileSync(at('strong.jsonl'), jsonl([meta, ...right]));
// 3 of 4 answers right (75%): french-singers loses its filter.
writeFileSync(
  at('mixed.jsonl'),
  jsonl([meta, ...right.map((r) => (r.id === 'french-singers' ? { ...r, sql: 'SELECT name FROM singer' } : r))]),
);

const base = (run: string) => ['run', '--corpus', at('corpus.yaml'), '--run', at(run), '--fixture', fixture];

beforeAll(async () => {
  const a = await runCli([...base('strong.jsonl'), '--out', at('strong.json')]);
  const b = await runCli([...base('mixed.jsonl'), '--out', at('mixed.json')]);
  expect([a.code, b.code]).toEqual([0, 1]);
}, 180_000);

describe('docs/run-report.schema.json', () => {
  it('accepts the reports run --out writes, and is strict below the top level', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema(JSON.parse(readFileSync(path.join(repoRoot, 'docs/report.schema.json'), 'utf8')));
    const validate = ajv.compile(JSON.parse(readFileSync(path.join(repoRoot, 'docs/run-report.schema.json'), 'utf8')));
    for (const f of ['strong.json', 'mixed.json']) {
      const report = JSON.parse(readFileSync(at(f), 'utf8')) as {
        cases: Record<string, unknown>[];
        corpus: Record<string, unknown>;
      };
      expect(validate(report), `${f}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(validate({ ...report, cases: [{ ...report.cases[0], outcome: 'fine' }] })).toBe(false);
      expect(validate({ ...report, corpus: { ...report.corpus, size: 'many' } })).toBe(false);
    }
  });
});

describe('run thresholds (teams without a baseline)', () => {
  it('--min-accuracy decides the exit status alone, exactly in whole cases', async () => {
    const met = await runCli([...base('mixed.jsonl'), '--min-accuracy', '0.75']);
    expect(met.code).toBe(0);
    expect(met.stdout).toContain('Threshold met: answer accuracy 3/4 (75.0%) ≥ 0.75');
    const missed = await runCli([
      ...base('mixed.jsonl'),
      '--min-accuracy',
      '80%',
      '--min-refusal-recall',
      '1',
      '--max-over-refusal',
      '0',
    ]);
    expect(missed.code).toBe(1);
    expect(missed.stdout).toContain('Threshold NOT met: answer accuracy 3/4 (75.0%) < 80%');
    expect(missed.stdout).toContain('Threshold met: refusal recall 1/1 (100.0%) ≥ 1');
    expect(missed.stdout).toMatch(/over-refusal cannot be measured/);
  });

  it('prints the measured rate on the side of the threshold the exact comparison found', () => {
    const lineOf = (mix: Parameters<typeof mixCases>[0], flag: string, value: string) =>
      checkThresholds(summary(mixCases(mix)), parseThresholds({ [flag]: value })).lines[0];
    // 2/3 = 66.666…% is below 66.7%: one decimal printed "(66.7%) < 66.7%".
    expect(lineOf({ correct: 2, wrong: 1 }, 'min-accuracy', '66.7%')).toBe(
      'Threshold NOT met: answer accuracy 2/3 (66.67%) < 66.7%',
    );
    // 1999/2000 is not 100%: it printed "(100.0%) < 100%".
    expect(lineOf({ correct: 1999, wrong: 1 }, 'min-accuracy', '1')).toBe(
      'Threshold NOT met: answer accuracy 1999/2000 (99.95%) < 1',
    );
    // 1/2001 declined is above a ceiling of 0: it printed "(0.0%) > 0".
    expect(lineOf({ controlsAnswered: 2000, controlsDeclined: 1 }, 'max-over-refusal', '0')).toBe(
      'Threshold NOT met: over-refusal 1/2001 (0.05%) > 0',
    );
    // One decimal where it already tells the sides apart, as before.
    expect(lineOf({ correct: 41, wrong: 23 }, 'min-accuracy', '0.8')).toBe(
      'Threshold NOT met: answer accuracy 41/64 (64.1%) < 0.8',
    );
    expect(lineOf({ correct: 3, wrong: 1 }, 'min-accuracy', '0.75')).toBe(
      'Threshold met: answer accuracy 3/4 (75.0%) ≥ 0.75',
    );
  });

  it('a threshold that is not a fraction is bad input', async () => {
    const bad = await runCli([...base('mixed.jsonl'), '--min-accuracy', '1.5']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--min-accuracy must be at most 1/);
    const nope = await runCli(['run', '--corpus', 'nope', '--run', at('mixed.jsonl')]);
    expect(nope.code).toBe(2);
    expect(nope.stderr).toMatch(/Corpus not found: nope .*execution_goldens, refusal_battery/);
  });
});

describe('"-" means stdout; JUnit with times and questions', () => {
  it('--out - prints only the report on stdout; the summary and progress go to stderr', async () => {
    const run = await runCli([...base('mixed.jsonl'), '--out', '-']);
    expect(JSON.parse(run.stdout)).toMatchObject({ kind: 'run' });
    expect(run.stderr).toMatch(/Answer accuracy: 3\/4/);
    expect(run.stderr).toMatch(/^graded 5\/5 \(/m);
  });

  it('--junit - writes JUnit on stdout: tests named by question, time and timestamp', async () => {
    const run = await runCli([...base('mixed.jsonl'), '--junit', '-']);
    expect(XMLValidator.validate(run.stdout)).toBe(true);
    const doc = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: '',
      isArray: (n) => n === 'testcase',
    }).parse(run.stdout);
    const suite = doc.testsuites.testsuite;
    expect(suite.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
    expect(Number(suite.time)).toBeGreaterThan(0);
    const names = suite.testcase.map((t: { name: string }) => t.name);
    expect(names).toContain('Which singers are from France?');
    const french = suite.testcase.find((t: { name: string }) => t.name === 'Which singers are from France?');
    expect(french.failure['#text']).toMatch(/^case: french-singers/);
    expect(french.properties.property).toMatchObject({ name: 'case_id', value: 'french-singers' });
    for (const t of suite.testcase) expect(t.time).toMatch(/^\d+\.\d{3}$/);
    // runCli runs in the repository root: no file named "-" appeared there.
    expect(existsSync(path.join(repoRoot, '-'))).toBe(false);
  });

  it('two outputs on stdout, or one with --json, are refused', async () => {
    const two = await runCli([...base('mixed.jsonl'), '--out', '-', '--junit', '-']);
    expect(two.code).toBe(2);
    expect(two.stderr).toMatch(/only one output can go to stdout/);
    const json = await runCli([...base('mixed.jsonl'), '--csv', '-', '--json']);
    expect(json.code).toBe(2);
  });

  it('gate --junit - and baseline record --out - print on stdout', async () => {
    const rec = await runCli(['baseline', 'record', '--report', at('strong.json'), '--out', '-']);
    expect(rec.code).toBe(0);
    writeFileSync(at('baseline.json'), rec.stdout);
    expect(rec.stderr).toMatch(/Baseline written to -/);
    const gate = await runCli([
      'gate',
      '--report',
      at('mixed.json'),
      '--baseline',
      at('baseline.json'),
      '--junit',
      '-',
    ]);
    expect(gate.code).toBe(1);
    expect(XMLValidator.validate(gate.stdout)).toBe(true);
    expect(gate.stdout).toMatch(/<testsuite name="gate: blocked"/);
    expect(gate.stderr).toMatch(/Gate: BLOCKED/);
  });
});

describe('diff --fail-on-regression', () => {
  it('exits 1 and names the regressed cases; 0 without regressions; plain diff stays 0', async () => {
    const regressed = await runCli([
      'diff',
      '--report',
      at('strong.json'),
      '--report',
      at('mixed.json'),
      '--fail-on-regression',
    ]);
    expect(regressed.code).toBe(1);
    expect(regressed.stderr).toMatch(/1 regression \(--fail-on-regression\): french-singers/);
    const fixedOnly = await runCli([
      'diff',
      '--report',
      at('mixed.json'),
      '--report',
      at('strong.json'),
      '--fail-on-regression',
    ]);
    expect(fixedOnly.code).toBe(0);
    const plain = await runCli(['diff', '--report', at('strong.json'), '--report', at('mixed.json')]);
    expect(plain.code).toBe(0);
    expect(plain.stderr).not.toMatch(/Warning/);
  });

  it('warns when the two runs were graded on other data (content digest, as-of instant), figures unchanged', async () => {
    const report = JSON.parse(readFileSync(at('mixed.json'), 'utf8'));
    const [fixture] = report.fixtures;
    report.fixtures = [
      { ...fixture, content_digest_before: 'f'.repeat(64), as_of: '2030-01-01T00:00:00Z' },
      { ...fixture, name: 'extra' },
    ];
    writeFileSync(at('other-data.json'), JSON.stringify(report));
    const same = await runCli(['diff', '--report', at('strong.json'), '--report', at('mixed.json'), '--json']);
    const other = await runCli(['diff', '--report', at('strong.json'), '--report', at('other-data.json'), '--json']);
    expect(other.code).toBe(0);
    const lines = other.stderr.split('\n').filter((l) => l.startsWith('Warning: '));
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(
          `^Warning: fixture ${fixture.name} has other content: digest \\w{12}… in run A, ffffffffffff… in run B\\.$`,
        ),
      ),
      expect.stringMatching(
        new RegExp(`^Warning: fixture ${fixture.name} was graded as of .+ in run A, 2030-01-01T00:00:00Z in run B`),
      ),
      'Warning: fixture extra was graded in run B only.',
    ]);
    const { fixture_differences: differences, ...figures } = JSON.parse(other.stdout);
    expect(differences).toHaveLength(3);
    const { fixture_differences: none, ...sameFigures } = JSON.parse(same.stdout);
    expect(none).toEqual([]);
    expect({ ...figures, b: null }).toEqual({ ...sameFigures, b: null });
  });
});

describe('progress on stderr', () => {
  it('draws one bar redrawn in place on a terminal, ending with a newline', () => {
    const writes: string[] = [];
    const spy = vi
      .spyOn(process.stderr, 'write')
      .mockImplementation((chunk: string | Uint8Array) => (writes.push(String(chunk)), true));
    try {
      const p = progressReporter({ out: () => {}, err: () => {}, cwd: '.', env: {} }, { tty: true, width: 60 });
      p.update(1, 4, 'a');
      p.update(4, 4, 'd');
      p.end();
    } finally {
      spy.mockRestore();
    }
    expect(writes.at(-2)).toMatch(/^\r\[#+\] 4\/4 d/);
    expect(writes.at(-1)).toBe('\n');
  });

  it('prints plain lines when stderr is not a terminal', () => {
    const lines: string[] = [];
    const p = progressReporter({ out: () => {}, err: (t) => lines.push(t), cwd: '.', env: {} }, { tty: false });
    p.update(1, 2, 'a');
    p.update(2, 2, 'b');
    expect(lines).toEqual(['graded 1/2 (a)', 'graded 2/2 (b)']);
  });
});

describe('a reader that goes away', () => {
  it('ends the command quietly with the status of a SIGPIPE (sql-verdict ... | head)', async () => {
    const child = spawn(
      process.execPath,
      [path.join(repoRoot, 'bin', 'sql-verdict.mjs'), ...base('strong.jsonl'), '--json'],
      {
        env: { ...process.env, NO_COLOR: '1' },
      },
    );
    // The reader closes before the report is printed: every write to stdout then fails with EPIPE.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).not.toMatch(/Internal error/);
    expect(code).toBe(141);
  }, 180_000);
});
