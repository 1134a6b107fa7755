/**
 * Benchmark files graded as they are, through the CLI (in process, real
 * sql.js engines): the BIRD sample with BIRD's EX (hand-computed below), the
 * same questions as a Spider layout under the official Spider match, a
 * defog-style CSV passing on a second alternative, `import` + native `run`
 * agreeing with `run --format`, and bad inputs rejected with file:line.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import type { Io } from '../../src/cli/io.ts';
import type { RunReport } from '../../src/core/run/grade-run.ts';
import { birdMetrics } from '../../src/core/run/preset-grade.ts';
import { presetLines } from '../../src/core/run/preset-lines.ts';
import { repoRoot } from '../helpers/paths.ts';

const samples = path.join(repoRoot, 'fixtures', 'benchmarks');
const tmp = mkdtempSync(path.join(tmpdir(), 'bench-formats-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function cli(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: Io = { out: (t) => void (stdout += `${t}\n`), err: (t) => void (stderr += `${t}\n`), cwd, env: {} };
  const code = await main(args, io);
  return { code, stdout, stderr };
}

/** The timed --policy bird report (R-VES test), reused for the hand-computed figures. */
let birdTimed: RunReport;

const outcomes = (r: RunReport) => Object.fromEntries(r.cases.map((c) => [c.id, c.outcome === 'correct']));

describe('BIRD layout', () => {
  const bird = path.join(samples, 'bird-sample');
  it('--policy bird: EX as BIRD computes it (sets of rows), SQL Verdict beside it, BIRD difficulty labels and evidence', async () => {
    const r = await cli(
      [
        'run',
        '--format',
        'bird',
        '--questions',
        'dev.json',
        '--pred',
        'predict_dev.json',
        '--db-dir',
        'dev_databases',
        '--policy',
        'bird',
        '--json',
      ],
      bird,
    );
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as RunReport;
    // By hand: 0 right; 1 wrong max; 2 duplicates (a set match); 3 columns swapped (tuples differ); 4 right, order ignored; 5 fails to run.
    expect(outcomes(report)).toEqual({
      q0000: true,
      q0001: false,
      q0002: true,
      q0003: false,
      q0004: true,
      q0005: false,
    });
    expect(report.summary.answer_accuracy).toMatchObject({ correct: 3, total: 6 });
    expect(report.policy_preset).toMatchObject({
      preset: 'bird',
      keep_distinct: false,
      native_answer_accuracy: { correct: 3, total: 6 },
      differences: { preset_pass_native_fail: ['q0002'], preset_fail_native_pass: ['q0003'] },
      difference_reasons: { set_semantics: 1, tuple_equality: 1 },
    });
    expect(report.cases[2]!.policy_preset).toMatchObject({
      verdict: 'pass',
      native_outcome: 'wrong',
      native_reason_code: 'result.row_count_mismatch',
      differs: true,
    });
    expect(report.cases[5]!.reason_code).toBe('bird.prediction_failed');
    expect(report.summary.difficulty_pyramid).toEqual([
      { difficulty: 'simple', total: 2, correct: 1 },
      { difficulty: 'moderate', total: 2, correct: 1 },
      { difficulty: 'challenging', total: 2, correct: 1 },
    ]);
    expect(report.cases[0]!.evidence).toBe("live in Lisbon refers to city = 'Lisbon'");
    expect(report.cases[0]!.report!.evidence.user_query).toBe(
      "How many customers live in Lisbon?\nEvidence: live in Lisbon refers to city = 'Lisbon'",
    );
  });

  it('Soft-F1 and R-VES per case and per difficulty (hand-computed Soft-F1; R-VES from the timed reward bands)', async () => {
    const r = await cli(
      [
        'run',
        '--format',
        'bird',
        '--questions',
        'dev.json',
        '--pred',
        'predict_dev.json',
        '--db-dir',
        'dev_databases',
        '--policy',
        'bird',
        '--ves-iterations',
        '3',
        '--json',
      ],
      bird,
    );
    const report = JSON.parse(r.stdout) as RunReport;
    // By hand: 1 the max differs (0); 3 the same cells in another column order (1); 5 fails (0).
    expect(report.cases.map((c) => c.policy_preset!.soft_f1)).toEqual([1, 0, 1, 1, 1, 0]);
    const m = report.policy_preset!.bird_metrics!;
    expect(m.ex).toBe(50);
    expect(m.soft_f1).toBeCloseTo(400 / 6, 10);
    expect(m.by_difficulty.map((d) => [d.difficulty, d.cases, d.soft_f1])).toEqual([
      ['simple', 2, 50],
      ['moderate', 2, 100],
      ['challenging', 2, 50],
    ]);
    const rewards = report.cases.map((c) => c.policy_preset!.rves!.reward);
    report.cases.forEach((c, i) =>
      expect(c.outcome === 'correct' ? [0.25, 0.5, 0.75, 1, 1.25] : [0]).toContain(rewards[i]),
    );
    expect(m.r_ves).toBeCloseTo((100 * rewards.reduce((a, x) => a + Math.sqrt(x), 0)) / 6, 10);
    // BIRD's original VES beside it: 100 · Σ√time_ratio / N, a wrong case's ratio 0; per difficulty over its own cases.
    const roots = report.cases.map((c) => (c.outcome === 'correct' ? Math.sqrt(c.policy_preset!.rves!.time_ratio) : 0));
    expect(m.ves).toBeCloseTo((100 * roots.reduce((a, x) => a + x, 0)) / 6, 10);
    m.by_difficulty.forEach((d, k) => expect(d.ves).toBeCloseTo((100 * (roots[2 * k]! + roots[2 * k + 1]!)) / 2, 10));
    birdTimed = report;
  });

  it('R-VES and VES hand-computed: the timed sample with its time ratios fixed (4, 0.36, 1 for the three correct cases)', () => {
    // Timings vary run to run; with fixed ratios every figure is computable by hand. Rewards by BIRD's bands:
    // 4 → 1.25, 0.36 → 0.5, 1 → 1; a wrong case scores 0 in both.
    const fixed: Record<string, { time_ratio: number; reward: number }> = {
      q0000: { time_ratio: 4, reward: 1.25 },
      q0002: { time_ratio: 0.36, reward: 0.5 },
      q0004: { time_ratio: 1, reward: 1 },
    };
    const cases = birdTimed.cases.map((c) => ({
      ...c,
      policy_preset: { ...c.policy_preset!, rves: { ...(fixed[c.id] ?? { time_ratio: 0, reward: 0 }), iterations: 3 } },
    }));
    const m = birdMetrics(cases, true);
    expect(m.ex).toBe(50);
    expect(m.r_ves).toBeCloseTo((100 * (Math.sqrt(1.25) + Math.sqrt(0.5) + 1)) / 6, 10); // 47.0857…
    expect(m.r_ves).toBeCloseTo(47.0857, 4);
    expect(m.ves).toBeCloseTo((100 * (2 + 0.6 + 1)) / 6, 10); // 60
    expect(m.by_difficulty.map((d) => [d.difficulty, d.cases, d.ex, d.soft_f1])).toEqual([
      ['simple', 2, 50, 50],
      ['moderate', 2, 50, 100],
      ['challenging', 2, 50, 50],
    ]);
    expect(m.by_difficulty.map((d) => d.r_ves!.toFixed(4))).toEqual(['55.9017', '35.3553', '50.0000']);
    expect(m.by_difficulty.map((d) => d.ves!.toFixed(4))).toEqual(['100.0000', '30.0000', '50.0000']);
    // And as `run --policy bird` prints them.
    expect(
      presetLines({
        summary: birdTimed.summary,
        policy_preset: { ...birdTimed.policy_preset!, bird_metrics: m },
      }).slice(-4),
    ).toEqual([
      'BIRD: EX 50.00, Soft-F1 66.67, R-VES 47.09, VES 60.00',
      '  simple (2): EX 50.00, Soft-F1 50.00, R-VES 55.90, VES 100.00',
      '  moderate (2): EX 50.00, Soft-F1 100.00, R-VES 35.36, VES 30.00',
      '  challenging (2): EX 50.00, Soft-F1 50.00, R-VES 50.00, VES 50.00',
    ]);
  });

  it('prints a preset accuracy below 100% never as 100.0% (Spider test: 2146 of 2147)', () => {
    const lines = presetLines({
      summary: {
        ...birdTimed.summary,
        answer_accuracy: { ...birdTimed.summary.answer_accuracy, correct: 2146, total: 2147 },
      },
      policy_preset: { ...birdTimed.policy_preset!, native_answer_accuracy: { correct: 1, total: 2147 } },
    });
    expect(lines[0]).toMatch(/: 2146\/2147 \(99\.95%\)$/);
    expect(lines[1]).toMatch(/^SQL Verdict's own policy: 1\/2147 \(0\.05%\);/);
  });

  it("the CLI's text output prints BIRD's figures per difficulty next to EX (untimed: R-VES and VES named as --ves-iterations)", async () => {
    const r = await cli(
      [
        'run',
        '--format',
        'bird',
        '--questions',
        'dev.json',
        '--pred',
        'predict_dev.json',
        '--db-dir',
        'dev_databases',
        '--policy',
        'bird',
      ],
      bird,
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      [
        'BIRD: EX 50.00, Soft-F1 66.67 (R-VES and VES: --ves-iterations N)',
        '  simple (2): EX 50.00, Soft-F1 50.00',
        '  moderate (2): EX 50.00, Soft-F1 100.00',
        '  challenging (2): EX 50.00, Soft-F1 50.00',
      ].join('\n'),
    );
    // Timed, the same lines get R-VES and VES (the hand-computed presetLines above: the CLI prints presetLines).
  });

  it('without a preset, with the format detected (and said so)', async () => {
    const r = await cli(
      ['run', '--questions', 'dev.json', '--pred', 'predict_dev.json', '--db-dir', 'dev_databases'],
      bird,
    );
    expect(r.stderr).toContain('format: bird (detected');
    expect(r.stdout).toContain('Answer accuracy: 3/6 (50.0%)');
    expect(r.stdout).toContain('By difficulty: simple 1/2, moderate 1/2, challenging 1/2');
  });

  it('a malformed BIRD separator is an error naming file, line and field (exit 2)', async () => {
    const pred = JSON.parse(readFileSync(path.join(bird, 'predict_dev.json'), 'utf8')) as Record<string, string>;
    writeFileSync(
      path.join(tmp, 'predict_bad.json'),
      JSON.stringify({ ...pred, 1: pred['1']!.replace('\t----- bird -----\t', ' ----- bird ----- ') }, null, 4),
    );
    const r = await cli(
      [
        'run',
        '--format',
        'bird',
        '--questions',
        path.join(bird, 'dev.json'),
        '--pred',
        'predict_bad.json',
        '--db-dir',
        path.join(bird, 'dev_databases'),
      ],
      tmp,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^predict_bad\.json:3: error \[bad_separator\] case 'q0001' field '1': /m);
  });
});

describe('Spider layout', () => {
  const spider = path.join(samples, 'spider-sample');
  const args = [
    'run',
    '--format',
    'spider',
    '--gold',
    'dev_gold.sql',
    '--pred',
    'pred.txt',
    '--db-dir',
    'database',
    '--policy',
    'spider',
    '--json',
  ];
  it('--policy spider: DISTINCT removed, columns permuted; --keep-distinct keeps it', async () => {
    const r = await cli(args, spider);
    const report = JSON.parse(r.stdout) as RunReport;
    // 2: DISTINCT removed from the gold, the bags agree; 3: a column permutation; 4: no ORDER BY in the gold.
    expect(outcomes(report)).toEqual({
      q0000: true,
      q0001: false,
      q0002: true,
      q0003: true,
      q0004: true,
      q0005: false,
    });
    expect(report.cases[3]!.policy_preset).toMatchObject({
      reason_code: 'spider.column_permutation',
      native_outcome: 'correct',
    });
    const kept = JSON.parse((await cli([...args, '--keep-distinct'], spider)).stdout) as RunReport;
    expect(outcomes(kept).q0002).toBe(false);
    expect(kept.cases[2]!.reason_code).toBe('spider.row_count');
    expect(kept.policy_preset?.keep_distinct).toBe(true);
  });

  it('misaligned predictions, an unknown db_id and a missing database file: file, line, field (exit 2)', async () => {
    writeFileSync(path.join(tmp, 'short.txt'), 'SELECT 1\nSELECT 2\n');
    const short = await cli(
      [
        'run',
        '--format',
        'spider',
        '--gold',
        path.join(spider, 'dev_gold.sql'),
        '--pred',
        'short.txt',
        '--db-dir',
        path.join(spider, 'database'),
      ],
      tmp,
    );
    expect(short.code).toBe(2);
    expect(short.stderr).toContain(
      "short.txt:3: error [count_mismatch] field 'prediction': short.txt has 2 prediction(s);",
    );
    writeFileSync(path.join(tmp, 'gold.sql'), 'SELECT 1\tshop\nSELECT 1\tnowhere\n');
    const unknown = await cli(
      [
        'run',
        '--format',
        'spider',
        '--gold',
        'gold.sql',
        '--pred',
        'short.txt',
        '--db-dir',
        path.join(spider, 'database'),
      ],
      tmp,
    );
    expect(unknown.stderr).toContain("gold.sql:2: error [unknown_fixture] field 'db_id': Unknown db_id 'nowhere'");
    // A database folder without its file.
    const dbs = path.join(tmp, 'dbs');
    mkdirSync(path.join(dbs, 'shop'), { recursive: true });
    mkdirSync(path.join(dbs, 'nowhere'), { recursive: true });
    copyFileSync(path.join(spider, 'database', 'shop', 'shop.sqlite'), path.join(dbs, 'shop', 'shop.sqlite'));
    const missing = await cli(
      ['run', '--format', 'spider', '--gold', 'gold.sql', '--pred', 'short.txt', '--db-dir', 'dbs'],
      tmp,
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      "gold.sql:2: error [missing_database] field 'db_id': The database folder dbs/nowhere has no nowhere.sqlite.",
    );
  });

  it('an output under a file is refused before grading, with one line (exit 2), and --out - prints the report', async () => {
    writeFileSync(path.join(tmp, 'plain-file'), 'x');
    const base = ['run', '--format', 'spider', '--gold', 'dev_gold.sql', '--pred', 'pred.txt', '--db-dir', 'database'];
    const under = await cli([...base, '--out', path.join(tmp, 'plain-file', 'r.json')], spider);
    expect(under.code).toBe(2);
    expect(under.stderr).toMatch(/--out .*plain-file\/r\.json: .*plain-file is not a directory\./);
    expect(under.stderr).not.toMatch(/graded|Internal error/);
    const dash = await cli([...base, '--out', '-'], spider);
    expect((JSON.parse(dash.stdout) as RunReport).kind).toBe('run');
  });

  it('import writes a native corpus and run that `run --corpus` grades exactly as `run --format` does', async () => {
    const imp = await cli(
      [
        'import',
        '--format',
        'spider',
        '--gold',
        path.join(spider, 'dev_gold.sql'),
        '--pred',
        path.join(spider, 'pred.txt'),
        '--db-dir',
        path.join(spider, 'database'),
        '--out',
        'corpus.yaml',
        '--run-out',
        'run.jsonl',
      ],
      tmp,
    );
    expect(imp.code).toBe(0);
    expect(imp.stdout).toContain('corpus.yaml (6 cases, 2 database(s): shop, school)');
    const fixtures = ['shop', 'school'].flatMap((d) => [
      '--fixture',
      `${d}=${path.join(spider, 'database', d, `${d}.sqlite`)}`,
    ]);
    const native = JSON.parse(
      (await cli(['run', '--corpus', 'corpus.yaml', '--run', 'run.jsonl', ...fixtures, '--json'], tmp)).stdout,
    ) as RunReport;
    const viaDbDir = JSON.parse(
      (
        await cli(
          ['run', '--corpus', 'corpus.yaml', '--run', 'run.jsonl', '--db-dir', path.join(spider, 'database'), '--json'],
          tmp,
        )
      ).stdout,
    ) as RunReport;
    expect(outcomes(viaDbDir)).toEqual(outcomes(native));
    const direct = JSON.parse(
      (
        await cli(
          [
            'run',
            '--format',
            'spider',
            '--gold',
            path.join(spider, 'dev_gold.sql'),
            '--pred',
            path.join(spider, 'pred.txt'),
            '--db-dir',
            path.join(spider, 'database'),
            '--json',
          ],
          tmp,
        )
      ).stdout,
    ) as RunReport;
    expect(native.corpus.sha256).toBe(direct.corpus.sha256);
    expect(outcomes(native)).toEqual(outcomes(direct));
    expect(native.summary.answer_accuracy).toEqual(direct.summary.answer_accuracy);
  });
});

describe('defog-style CSV', () => {
  it('a case passes on the second {a, b} alternative, and the report names it', async () => {
    const r = await cli(
      [
        'run',
        '--format',
        'csv',
        '--questions',
        'questions.csv',
        '--pred',
        'predictions.csv',
        '--db-dir',
        '../bird-sample/dev_databases',
        '--json',
      ],
      path.join(samples, 'defog-sample'),
    );
    const report = JSON.parse(r.stdout) as RunReport;
    expect(outcomes(report)).toEqual({ q0000: true, q0001: true, q0002: false, q0003: true });
    expect(report.cases[1]!.reference_match).toMatchObject({
      references: 3,
      matched_index: 1,
      reported_sql: "SELECT name FROM customers WHERE segment = 'retail'",
    });
    expect(report.cases[2]!.evidence).toBe("paid means status = 'paid'");
  });
});
