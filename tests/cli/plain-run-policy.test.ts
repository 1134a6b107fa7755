/**
 * `--policy spider|bird` on a plain `run --corpus … --run …`: the imported
 * Spider sample graded this way gives the same preset verdicts, case by case,
 * as `run --format spider --policy spider` on the original files, and the
 * default policy's verdict stays beside each one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { RunReport } from '../../src/core/run/grade-run.ts';
import { runCliSync } from '../helpers/cli.ts';

const S = 'fixtures/benchmarks/spider-sample';
const dir = mkdtempSync(path.join(tmpdir(), 'plain-policy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cli(args: string[]) {
  const r = runCliSync(args);
  return { ...r, status: r.code };
}

describe('run --corpus --run --policy', () => {
  test('the imported Spider sample under --policy spider equals run --format spider --policy spider, default verdicts beside', () => {
    const corpus = path.join(dir, 'corpus.yaml');
    const run = path.join(dir, 'run.jsonl');
    expect(
      cli([
        'import',
        '--format',
        'spider',
        '--gold',
        `${S}/dev_gold.sql`,
        '--pred',
        `${S}/pred.txt`,
        '--db-dir',
        `${S}/database`,
        '--out',
        corpus,
        '--run-out',
        run,
      ]).status,
    ).toBe(0);
    const plain = cli([
      'run',
      '--corpus',
      corpus,
      '--run',
      run,
      '--db-dir',
      `${S}/database`,
      '--policy',
      'spider',
      '--json',
    ]);
    const direct = cli([
      'run',
      '--format',
      'spider',
      '--gold',
      `${S}/dev_gold.sql`,
      '--pred',
      `${S}/pred.txt`,
      '--db-dir',
      `${S}/database`,
      '--policy',
      'spider',
      '--json',
    ]);
    expect(plain.status, plain.stderr).toBe(1);
    expect(direct.status, direct.stderr).toBe(1);
    const a = JSON.parse(plain.stdout) as RunReport;
    const b = JSON.parse(direct.stdout) as RunReport;
    expect(a.policy_preset?.preset).toBe('spider');
    expect(a.summary.answer_accuracy).toEqual(b.summary.answer_accuracy);
    expect(a.policy_preset?.native_answer_accuracy).toEqual(b.policy_preset?.native_answer_accuracy);
    expect(a.policy_preset?.difference_reasons).toEqual(b.policy_preset?.difference_reasons);
    const verdicts = (r: RunReport) =>
      r.cases.map((c) => [
        c.id,
        c.outcome,
        (c as { policy_preset?: { native_outcome: string } }).policy_preset?.native_outcome ?? null,
      ]);
    expect(verdicts(a)).toEqual(verdicts(b));
    // The human summary names both figures.
    const human = cli(['run', '--corpus', corpus, '--run', run, '--db-dir', `${S}/database`, '--policy', 'spider']);
    expect(human.stdout).toMatch(/Answer accuracy \(policy spider\): 4\/6[\s\S]*SQL Verdict's own policy: 3\/6/);
    expect(
      cli(['run', '--corpus', corpus, '--run', run, '--db-dir', `${S}/database`, '--keep-distinct']).stderr,
    ).toMatch(/--keep-distinct goes with --policy spider/);
    expect(
      cli([
        'run',
        '--corpus',
        corpus,
        '--run',
        run,
        '--db-dir',
        `${S}/database`,
        '--policy',
        'spider',
        '--ves-iterations',
        '2',
      ]).stderr,
    ).toMatch(/--ves-iterations goes with --policy bird/);
  }, 180_000);
});
