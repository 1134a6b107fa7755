/**
 * Benchmark files as users really have them, and the ways they go wrong,
 * through the CLI (in process, real sql.js engines, real files): each case
 * is a defect found by probing the command line as a newcomer would.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import type { Io } from '../../src/cli/io.ts';
import type { RunReport } from '../../src/core/run/grade-run.ts';
import { repoRoot } from '../helpers/paths.ts';

const samples = path.join(repoRoot, 'fixtures', 'benchmarks');
const tmp = mkdtempSync(path.join(tmpdir(), 'bench-inputs-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
cpSync(path.join(samples, 'spider-sample'), path.join(tmp, 'spider'), { recursive: true });
cpSync(path.join(samples, 'bird-sample'), path.join(tmp, 'bird'), { recursive: true });
const spider = path.join(tmp, 'spider');
const bird = path.join(tmp, 'bird');

async function cli(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: Io = { out: (t) => void (stdout += `${t}\n`), err: (t) => void (stderr += `${t}\n`), cwd, env: {} };
  const code = await main(args, io);
  return { code, stdout, stderr };
}

const noCrash = (text: string) => expect(text).not.toMatch(/Internal|\n\s+at .*:\d+:\d+|TypeError|RangeError/);

describe('BIRD', () => {
  it('a file broken the same way on every entry prints 20 examples and a count, not one line per entry', async () => {
    const questions = JSON.parse(readFileSync(path.join(bird, 'dev.json'), 'utf8')) as Record<string, unknown>[];
    const many = Array.from({ length: 25 }, (_, i) => ({ ...questions[i % questions.length], question_id: i }));
    writeFileSync(path.join(bird, 'dev_many.json'), JSON.stringify(many));
    // Predictions without BIRD's separator (a model's raw SQL): each entry is a bad_separator.
    writeFileSync(
      path.join(bird, 'predict_many.json'),
      JSON.stringify(Object.fromEntries(many.map((_, i) => [String(i), 'SELECT 1'])), null, 4),
    );
    const r = await cli(
      ['run', '--format', 'bird', '--questions', 'dev_many.json', '--pred', 'predict_many.json'].concat([
        '--db-dir',
        'dev_databases',
      ]),
      bird,
    );
    expect(r.code).toBe(2);
    noCrash(r.stderr);
    expect(r.stderr.match(/error \[bad_separator\]/g)).toHaveLength(20);
    expect(r.stderr).toMatch(
      /^predict_many\.json: … 5 more errors \[bad_separator\] like the 20 above \(25 in all\)\.$/m,
    );
  });

  it('mini_dev keyed by position with a prediction missing: the missing position is named, not every question', async () => {
    const questions = JSON.parse(readFileSync(path.join(bird, 'dev.json'), 'utf8')) as Record<string, unknown>[];
    writeFileSync(
      path.join(bird, 'mini_dev_short.json'),
      JSON.stringify(questions.map((q, i) => ({ ...q, question_id: 1471 + i }))),
    );
    const pred = JSON.parse(readFileSync(path.join(bird, 'predict_dev.json'), 'utf8')) as Record<string, string>;
    delete pred['5'];
    writeFileSync(path.join(bird, 'predict_short.json'), JSON.stringify(pred, null, 4));
    const r = await cli(
      [
        'run',
        '--format',
        'bird',
        '--questions',
        'mini_dev_short.json',
        '--pred',
        'predict_short.json',
        '--db-dir',
        'dev_databases',
      ],
      bird,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^predict_short\.json:\d+: error \[count_mismatch\] field '5': predict_short\.json has 5 prediction\(s\); mini_dev_short\.json has 6 questions\. No prediction for "5" \(question_id 1476\)\.$/m,
    );
  });

  it("mini_dev: predictions keyed 0, 1, … by position (BIRD's own files) are graded against question_ids 1471, …", async () => {
    // mini_dev_sqlite.json numbers its questions with the dev set's ids (1471, 1472, …), while
    // BIRD's gpt_request.py writes predict_mini_dev_*.json keyed by position ("0", "1", …)
    // and its evaluation pairs them in order.
    const questions = JSON.parse(readFileSync(path.join(bird, 'dev.json'), 'utf8')) as Record<string, unknown>[];
    writeFileSync(
      path.join(bird, 'mini_dev_sqlite.json'),
      JSON.stringify(
        questions.map((q, i) => ({ ...q, question_id: 1471 + i })),
        null,
        2,
      ),
    );
    const r = await cli(
      [
        'run',
        '--format',
        'bird',
        '--questions',
        'mini_dev_sqlite.json',
        '--pred',
        'predict_dev.json',
        '--db-dir',
        'dev_databases',
        '--json',
      ],
      bird,
    );
    noCrash(r.stderr);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/^predict_dev\.json:1: warning \[keyed_by_position\]: /m);
    const report = JSON.parse(r.stdout) as RunReport;
    // The sample's verdicts under SQL Verdict's policy (q0001, q0002, q0005 fail), under the new ids.
    expect(report.cases.map((c) => [c.id, c.outcome === 'correct'])).toEqual([
      ['q1471', true],
      ['q1472', false],
      ['q1473', false],
      ['q1474', true],
      ['q1475', true],
      ['q1476', false],
    ]);
  });
});

describe('outputs never overwrite an input or each other', () => {
  const spiderRun = [
    'run',
    '--format',
    'spider',
    '--gold',
    'dev_gold.sql',
    '--pred',
    'pred.txt',
    '--db-dir',
    'database',
  ];
  const spiderImport = ['import', '--format', 'spider', '--gold', 'dev_gold.sql', '--pred', 'pred.txt'];
  const read = (f: string) => readFileSync(path.join(spider, f), 'utf8');

  it('run --format --out naming the predictions file is refused before grading (exit 2), the file kept', async () => {
    const pred = read('pred.txt');
    const r = await cli([...spiderRun, '--out', 'pred.txt'], spider);
    noCrash(r.stderr);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^run: --out pred\.txt is the --pred input: .*give another path\.$/m);
    expect(r.stderr).not.toMatch(/graded/);
    expect(read('pred.txt')).toBe(pred);
  });

  it('run --out and --markdown naming one file are refused (exit 2)', async () => {
    const r = await cli([...spiderRun, '--out', 'same.txt', '--markdown', './same.txt'], spider);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^run: --out and --markdown both name (\.\/)?same\.txt: give each output its own file\.$/m,
    );
    expect(existsSync(path.join(spider, 'same.txt'))).toBe(false);
  });

  it('run --corpus/--run: --out naming the run file is refused (exit 2), the run kept', async () => {
    const runFile = path.join(repoRoot, 'fixtures', 'runs', 'execution_goldens.strong.json');
    cpSync(runFile, path.join(tmp, 'strong.json'));
    const r = await cli(['run', '--corpus', 'execution_goldens', '--run', 'strong.json', '--out', 'strong.json'], tmp);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^run: --out strong\.json is the --run input: /m);
    expect(readFileSync(path.join(tmp, 'strong.json'), 'utf8')).toBe(readFileSync(runFile, 'utf8'));
  });

  it('import --out and --run-out naming one file are refused (exit 2): the corpus is not lost', async () => {
    const r = await cli([...spiderImport, '--out', 'c.yaml', '--run-out', 'c.yaml'], spider);
    noCrash(r.stderr);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^import: --out and --run-out both name c\.yaml: give each output its own file\.$/m);
    expect(existsSync(path.join(spider, 'c.yaml'))).toBe(false);
  });

  it('import --out - prints the corpus alone on stdout (the "Wrote" note on stderr)', async () => {
    const r = await cli([...spiderImport.filter((a) => a !== '--pred' && a !== 'pred.txt'), '--out', '-'], spider);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^corpus: dev_gold\n/);
    expect(r.stdout).not.toMatch(/Wrote/);
    expect(r.stderr).toMatch(/^Wrote stdout \(6 cases/m);
    expect(existsSync(path.join(spider, '-'))).toBe(false);
  });

  it('import --out naming the gold file is refused (exit 2), the gold kept', async () => {
    const gold = read('dev_gold.sql');
    const r = await cli([...spiderImport, '--out', 'dev_gold.sql', '--run-out', 'r.jsonl'], spider);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^import: --out dev_gold\.sql is the --gold input: /m);
    expect(read('dev_gold.sql')).toBe(gold);
    expect(existsSync(path.join(spider, 'r.jsonl'))).toBe(false);
  });

  it('import --run-out that cannot be written is refused before the corpus is written (nothing half-done)', async () => {
    mkdirSync(path.join(spider, 'a-folder'), { recursive: true });
    const r = await cli([...spiderImport, '--out', 'half.yaml', '--run-out', 'a-folder'], spider);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^--run-out a-folder is a directory: give a file path\.$/m);
    expect(existsSync(path.join(spider, 'half.yaml'))).toBe(false);
  });
});

describe('a benchmark with no question is bad input, named, not an internal error', () => {
  it.each([
    [
      'spider: a gold file of blank lines',
      ['--format', 'spider', '--gold', 'blank.sql', '--pred', 'blank.sql'],
      'blank.sql',
      '\n\n',
    ],
    [
      'spider: dev.json []',
      ['--format', 'spider', '--questions', 'none.json', '--pred', 'empty.txt'],
      'none.json',
      '[]',
    ],
    [
      'bird: dev.json []',
      ['--format', 'bird', '--questions', 'none.json', '--pred', 'none-pred.json'],
      'none.json',
      '[]',
    ],
    [
      'csv: a header without rows',
      ['--format', 'csv', '--questions', 'header.csv', '--pred', 'header-pred.csv'],
      'header.csv',
      'question,query,db_name\n',
    ],
  ])('%s', async (_name, args, file, text) => {
    writeFileSync(path.join(tmp, file), text);
    writeFileSync(path.join(tmp, 'empty.txt'), '');
    writeFileSync(path.join(tmp, 'none-pred.json'), '{}');
    writeFileSync(path.join(tmp, 'header-pred.csv'), 'question,generated_query\n');
    const r = await cli(['run', ...args, '--db-dir', path.join(spider, 'database')], tmp);
    noCrash(r.stderr);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(`^${file.replace('.', '\\.')}:1: error \\[empty_corpus\\]: .*nothing to grade\\.$`, 'm'),
    );
    // import does not write a corpus that run --corpus would refuse.
    const imp = await cli(
      ['import', ...args.filter((a, i) => a !== '--pred' && args[i - 1] !== '--pred'), '--out', 'none.yaml'],
      tmp,
    );
    expect(imp.code).toBe(2);
    expect(existsSync(path.join(tmp, 'none.yaml'))).toBe(false);
  });
});

describe('a 0-byte database file is refused, not graded as an empty database', () => {
  it('--db-dir with an empty school.sqlite: exit 2 naming the file, no accuracy printed', async () => {
    // It was graded: every school reference failed (no such table), those cases were set aside as
    // broken references, and --policy spider printed "Answer accuracy (policy spider): 3/3 (100.0%)".
    const dbs = path.join(tmp, 'dbs-empty');
    cpSync(path.join(spider, 'database'), dbs, { recursive: true });
    writeFileSync(path.join(dbs, 'school', 'school.sqlite'), '');
    const r = await cli(
      [
        'run',
        '--format',
        'spider',
        '--gold',
        'dev_gold.sql',
        '--pred',
        'pred.txt',
        '--db-dir',
        dbs,
        '--policy',
        'spider',
      ],
      spider,
    );
    noCrash(r.stderr);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/school\.sqlite is empty \(0 bytes\), not a SQLite database/);
    expect(r.stdout).not.toMatch(/Answer accuracy/);
  });

  it('query --fixture empty.sqlite: exit 2', async () => {
    writeFileSync(path.join(tmp, 'empty.sqlite'), '');
    const r = await cli(['query', '--fixture', 'empty.sqlite', 'SELECT 1'], tmp);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/empty\.sqlite is empty \(0 bytes\), not a SQLite database/);
  });
});

describe('a flag given twice with two values is refused, not silently the last', () => {
  it('run --format spider --pred a --pred b: exit 2 naming both', async () => {
    // It graded pred.txt and said nothing of short.txt (the first --pred).
    writeFileSync(path.join(spider, 'short.txt'), 'SELECT 1\n');
    const r = await cli(
      [
        'run',
        '--format',
        'spider',
        '--gold',
        'dev_gold.sql',
        '--pred',
        'short.txt',
        '--pred',
        'pred.txt',
        '--db-dir',
        'database',
      ],
      spider,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^run: --pred given twice \(short\.txt, then pred\.txt\): give it once\.$/m);
    expect(r.stdout).not.toMatch(/Answer accuracy/);
  });

  it('a repeatable flag still repeats, and one value given twice is fine', async () => {
    const r = await cli(['diff', '--report', 'missing-a.json', '--report', 'missing-b.json'], tmp);
    expect(r.stderr).toMatch(/^Cannot read report missing-a\.json: ENOENT\.$/m);
    const same = await cli(
      [
        'run',
        '--format',
        'spider',
        '--gold',
        'dev_gold.sql',
        '--pred',
        'pred.txt',
        '--pred',
        'pred.txt',
        '--db-dir',
        'database',
      ],
      spider,
    );
    expect(same.code, same.stderr).toBe(1);
  });
});

describe('a prediction thousands of terms long is graded, not a crash of the whole run', () => {
  it('SELECT 0+0+…+count(*) (3,000 terms) fails as the engine says; every other case is graded', async () => {
    // Its tree, 3,000 levels deep, overflowed the stack while it was frozen for the parse cache:
    // "Internal error: Maximum call stack size exceeded", and no case of the run was graded.
    const pred = readFileSync(path.join(spider, 'pred.txt'), 'utf8').split('\n');
    pred[0] = `SELECT ${'0+'.repeat(3000)}count(*) FROM customers WHERE city = 'Lisbon'`;
    writeFileSync(path.join(spider, 'deep.txt'), pred.join('\n'));
    const r = await cli(
      ['run', '--format', 'spider', '--gold', 'dev_gold.sql', '--pred', 'deep.txt', '--db-dir', 'database', '--json'],
      spider,
    );
    noCrash(r.stderr);
    expect(r.code, r.stderr).toBe(1);
    const report = JSON.parse(r.stdout) as RunReport;
    // SQLite's own limit (expression depth 1000) rejects it; the sample's other verdicts stand.
    expect(report.cases[0]!.reason).toMatch(/Expression tree is too large/);
    expect(report.cases.map((c) => c.outcome === 'correct')).toEqual([false, false, false, true, true, false]);
  });

  it("500 terms (within SQLite's limit, past the structure analysis' depth) is graded by its result", async () => {
    const pred = readFileSync(path.join(spider, 'pred.txt'), 'utf8').split('\n');
    pred[0] = `SELECT ${'0+'.repeat(500)}count(*) FROM customers WHERE city = 'Lisbon'`;
    writeFileSync(path.join(spider, 'deep500.txt'), pred.join('\n'));
    const r = await cli(
      [
        'run',
        '--format',
        'spider',
        '--gold',
        'dev_gold.sql',
        '--pred',
        'deep500.txt',
        '--db-dir',
        'database',
        '--json',
      ],
      spider,
    );
    expect(r.code, r.stderr).toBe(1);
    expect((JSON.parse(r.stdout) as RunReport).cases[0]!.outcome).toBe('correct');
  });
});

describe('import --pred without --run-out', () => {
  it('is refused (exit 2), not a corpus written with the predictions silently dropped', async () => {
    const r = await cli(
      ['import', '--format', 'spider', '--gold', 'dev_gold.sql', '--pred', 'pred.txt', '--out', 'no-run.yaml'],
      spider,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^import: --pred needs --run-out FILE \(where to write the predictions as a run\)/m);
    expect(existsSync(path.join(spider, 'no-run.yaml'))).toBe(false);
  });
});

describe('the wrong --format for a dev.json says so in one line', () => {
  it('--format bird on a Spider dev.json, --format spider on a BIRD dev.json', async () => {
    // Each gave one error per question (1,034 lines for Spider's dev.json), each with the hint
    // "(found 'sql')": Spider's parsed-SQL object, not a misspelt BIRD field.
    writeFileSync(
      path.join(tmp, 'spider-dev.json'),
      JSON.stringify(
        [1, 2, 3].map((i) => ({ db_id: 'shop', query: `SELECT ${i}`, question: `q${i}`, sql: { select: [] } })),
        null,
        2,
      ),
    );
    const b = await cli(
      [
        'run',
        '--format',
        'bird',
        '--questions',
        'spider-dev.json',
        '--pred',
        path.join(bird, 'predict_dev.json'),
        '--db-dir',
        path.join(bird, 'dev_databases'),
      ],
      tmp,
    );
    expect(b.code).toBe(2);
    const lines = b.stderr.trim().split('\n');
    expect(lines[0]).toMatch(
      /^spider-dev\.json:2: error \[unknown_format\]: .*looks like Spider's dev\.json .*--format spider/,
    );
    expect(lines).toHaveLength(2); // the problem, then "nothing was graded"
    const s = await cli(
      [
        'run',
        '--format',
        'spider',
        '--questions',
        'dev.json',
        '--pred',
        path.join(spider, 'pred.txt'),
        '--db-dir',
        'dev_databases',
      ],
      bird,
    );
    expect(s.code).toBe(2);
    expect(s.stderr.trim().split('\n')[0]).toMatch(
      /^dev\.json:2: error \[unknown_format\]: .*looks like BIRD's dev\.json .*--format bird/,
    );
  });
});

describe('CSV: the predictions in the questions CSV (generated_query beside the questions)', () => {
  const defog = path.join(samples, 'defog-sample');
  const both = path.join(tmp, 'both.csv');
  // questions.csv with predictions.csv's generated_query column added (no comma inside those queries).
  const q = readFileSync(path.join(defog, 'questions.csv'), 'utf8').trimEnd().split('\n');
  const p = readFileSync(path.join(defog, 'predictions.csv'), 'utf8').trimEnd().split('\n');
  writeFileSync(both, `${q.map((line, i) => `${line},${p[i]!.slice(p[i]!.indexOf(',') + 1)}`).join('\n')}\n`);
  const dbs = path.join(bird, 'dev_databases');

  it('run --format csv without --pred grades that column, as docs/benchmark-files.md says', async () => {
    // It stopped at "run --format: --pred is required" before reading the file.
    const r = await cli(['run', '--format', 'csv', '--questions', 'both.csv', '--db-dir', dbs], tmp);
    noCrash(r.stderr);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain('Answer accuracy: 3/4 (75.0%)');
    const imp = await cli(
      ['import', '--format', 'csv', '--questions', 'both.csv', '--out', 'both.yaml', '--run-out', 'both.jsonl'],
      tmp,
    );
    expect(imp.code, imp.stderr).toBe(0);
    expect(readFileSync(path.join(tmp, 'both.jsonl'), 'utf8').trim().split('\n')).toHaveLength(5);
  });

  it('without --pred and without that column: exit 2 asking for one', async () => {
    const r = await cli(
      ['run', '--format', 'csv', '--questions', path.join(defog, 'questions.csv'), '--db-dir', dbs],
      tmp,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /no predictions: give --pred PRED\.csv, or a generated_query .*column in the questions CSV/,
    );
  });
});

describe('a database file that is not SQLite is named before grading starts', () => {
  it('a Git LFS pointer as school.sqlite: exit 2 at the gold line that names it, no case graded', async () => {
    // It was found only when the first school case was graded: the cases before it were graded
    // and thrown away (on Spider or BIRD, up to hours of them) and the message named no line.
    const dbs = path.join(tmp, 'dbs-lfs');
    cpSync(path.join(spider, 'database'), dbs, { recursive: true });
    writeFileSync(
      path.join(dbs, 'school', 'school.sqlite'),
      'version https://git-lfs.github.com/spec/v1\noid sha256:4d7a2146\nsize 24576\n',
    );
    const r = await cli(
      ['run', '--format', 'spider', '--gold', 'dev_gold.sql', '--pred', 'pred.txt', '--db-dir', dbs],
      spider,
    );
    noCrash(r.stderr);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^dev_gold\.sql:2: error \[missing_database\] field 'db_id': .*school\.sqlite is not a SQLite database \(a Git LFS pointer/m,
    );
    expect(r.stderr).not.toMatch(/^graded \d/m);
  });
});

describe('run --corpus with --db-dir: a database that is not SQLite', () => {
  it('is refused before grading (exit 2), as run --format does', async () => {
    const imp = await cli(
      [
        'import',
        '--format',
        'spider',
        '--gold',
        'dev_gold.sql',
        '--pred',
        'pred.txt',
        '--out',
        'imp.yaml',
        '--run-out',
        'imp.jsonl',
      ],
      spider,
    );
    expect(imp.code, imp.stderr).toBe(0);
    const dbs = path.join(tmp, 'dbs-plain');
    cpSync(path.join(spider, 'database'), dbs, { recursive: true });
    writeFileSync(path.join(dbs, 'school', 'school.sqlite'), '');
    const r = await cli(['run', '--corpus', 'imp.yaml', '--run', 'imp.jsonl', '--db-dir', dbs], spider);
    noCrash(r.stderr);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^--db-dir: .*school\.sqlite is empty \(0 bytes\), not a SQLite database/m);
    expect(r.stderr).not.toMatch(/^graded \d/m);
  });
});

describe('BIRD: two question_ids of one number', () => {
  it('"007" and 7 are a duplicate_id at the second, not an internal error', async () => {
    // Both became case q0007: "(imported):17:9: error [duplicate_id]" then "Internal: the imported corpus does not load".
    const questions = JSON.parse(readFileSync(path.join(bird, 'dev.json'), 'utf8')) as Record<string, unknown>[];
    const ids = ['007', 7, 2, 3, 4, 5];
    writeFileSync(
      path.join(bird, 'dup-ids.json'),
      JSON.stringify(
        questions.map((q, i) => ({ ...q, question_id: ids[i] })),
        null,
        2,
      ),
    );
    const r = await cli(
      [
        'run',
        '--format',
        'bird',
        '--questions',
        'dup-ids.json',
        '--pred',
        'predict_dev.json',
        '--db-dir',
        'dev_databases',
      ],
      bird,
    );
    noCrash(r.stderr);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^dup-ids\.json:10: error \[duplicate_id\] case #2 field 'question_id': question_id 7 is already used at line 2\.$/m,
    );
  });
});

describe('Spider: blank lines at the end of a file', () => {
  it('are no interaction: a gold or predictions file ending in "\\n\\n\\n" is graded as without them', async () => {
    // "pred.txt has 2 interaction(s) (blank-line separated) and 6 prediction(s); dev_gold.sql has 1": the
    // official evaluator reads them as empty interactions that its zip() of the two files drops.
    writeFileSync(
      path.join(spider, 'gold-trailing.sql'),
      `${readFileSync(path.join(spider, 'dev_gold.sql'), 'utf8')}\n\n`,
    );
    writeFileSync(
      path.join(spider, 'pred-trailing.txt'),
      `${readFileSync(path.join(spider, 'pred.txt'), 'utf8')}\n\n\n`,
    );
    for (const [gold, pred] of [
      ['gold-trailing.sql', 'pred.txt'],
      ['dev_gold.sql', 'pred-trailing.txt'],
    ] as const) {
      const r = await cli(
        ['run', '--format', 'spider', '--gold', gold, '--pred', pred, '--db-dir', 'database', '--json'],
        spider,
      );
      expect(r.code, r.stderr).toBe(1);
      const report = JSON.parse(r.stdout) as RunReport;
      expect(report.cases.map((c) => c.id)).toEqual(['q0000', 'q0001', 'q0002', 'q0003', 'q0004', 'q0005']);
      expect(report.summary.answer_accuracy.correct).toBe(3);
    }
  });
});

describe('compare --expected ""', () => {
  it('is bad input (exit 2), not a graded "broken oracle" (exit 1)', async () => {
    // It printed "UNDECIDED · critical failure … Broken oracle: the reference query does not parse" and exit 1.
    const r = await cli(['compare', '--fixture', 'retail', '--expected', '  ', '--actual', 'SELECT 1'], tmp);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^compare: --expected is empty: give the reference SQL/m);
  });
});

describe('a UTF-16 benchmark file (PowerShell ">" writes one) is named as such', () => {
  it('with a byte-order mark, and without (NUL bytes): exit 2, "save it as UTF-8"', async () => {
    // With the mark: "byte 0xff cannot start a UTF-8 sequence"; without: "p16n.txt has 7 prediction(s)",
    // and with a line count that happened to match, predictions full of NULs were graded.
    const text = readFileSync(path.join(spider, 'pred.txt'), 'utf8');
    writeFileSync(
      path.join(spider, 'p16.txt'),
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]),
    );
    writeFileSync(path.join(spider, 'p16n.txt'), Buffer.from(text, 'utf16le'));
    const args = ['run', '--format', 'spider', '--gold', 'dev_gold.sql', '--db-dir', 'database', '--pred'];
    const bom = await cli([...args, 'p16.txt'], spider);
    expect(bom.code).toBe(2);
    expect(bom.stderr).toMatch(
      /^p16\.txt: error \[not_utf8\]: The file is UTF-16 \(byte-order mark\); save it as UTF-8\.$/m,
    );
    const nul = await cli([...args, 'p16n.txt'], spider);
    expect(nul.code).toBe(2);
    expect(nul.stderr).toMatch(
      /^p16n\.txt:1: error \[not_utf8\]: The file contains a NUL byte \(UTF-16 without a byte-order mark\?\); save it as UTF-8\.$/m,
    );
  });
});

describe('a UTF-16 run file is named as such', () => {
  it('run --corpus --run: with and without a byte-order mark, exit 2 "save it as UTF-8"', async () => {
    // Without the mark: "Line 1 is not a JSON value: Expected property name …", one line per record.
    const text = readFileSync(path.join(repoRoot, 'fixtures', 'runs', 'execution_goldens.flawed.jsonl'), 'utf8');
    writeFileSync(
      path.join(tmp, 'r16.jsonl'),
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]),
    );
    writeFileSync(path.join(tmp, 'r16n.jsonl'), Buffer.from(text, 'utf16le'));
    for (const file of ['r16.jsonl', 'r16n.jsonl']) {
      const r = await cli(['run', '--corpus', 'execution_goldens', '--run', file], tmp);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')[0]).toMatch(/error \[not_utf8\]: .*UTF-16.*save (it|the file) as UTF-8\.$/);
    }
  });
});
