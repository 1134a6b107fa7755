import { describe, expect, it } from 'vitest';
import { recordBaseline, type Baseline } from '../../src/core/gate/baseline.ts';
import { readBaselineFile } from '../../src/core/gate/baseline-file.ts';
import { mixCases, summary } from './build.ts';

const recorded = recordBaseline(summary(mixCases({ correct: 3, wrong: 1 })), { date: '2026-07-01' });
if (!recorded.ok) throw new Error(recorded.error.message);
const text = `${JSON.stringify(recorded.value, null, 2)}\n`;
const lineOfKey = (t: string, key: string) => t.split('\n').findIndex((l) => l.includes(`"${key}"`)) + 1;

describe('readBaselineFile: a baseline file with positions', () => {
  it('reads what recordBaseline wrote', () => {
    const read = readBaselineFile('b.json', text);
    expect(read.ok && read.value.model).toBe('luna-2');
  });

  it('names the line of a JSON syntax error', () => {
    const broken = text.replace('"suite": "battery",', '"suite": "battery"');
    const read = readBaselineFile('b.json', broken);
    expect(read.ok).toBe(false);
    if (read.ok) return;
    // The parser trips on the key after the missing comma.
    expect(read.error.message).toMatch(new RegExp(`^b\\.json:${lineOfKey(broken, 'path')}: not valid JSON`));
  });

  it('names the field and its line when a field is malformed', () => {
    const bad = text.replace(/"correct": 3/, '"correct": "3"');
    const read = readBaselineFile('b.json', bad);
    expect(read.ok).toBe(false);
    if (read.ok) return;
    const line = lineOfKey(bad, 'answer_accuracy');
    expect(read.error.message).toBe(
      `b.json:${line} (field figures.answer_accuracy): Not a valid baseline: figures.answer_accuracy must be {correct, total} whole cases.`,
    );
    expect(read.error.location).toBe(`b.json:${line}`);
  });

  it('names a missing field without a line', () => {
    const { model: _model, ...rest } = recorded.value;
    const read = readBaselineFile('b.json', JSON.stringify(rest, null, 2));
    expect(!read.ok && read.error.message).toBe(
      'b.json (field model): Not a valid baseline: model is missing; a baseline is recorded per model.',
    );
  });

  it('tells a run report from a baseline', () => {
    const read = readBaselineFile('r.json', JSON.stringify({ kind: 'run', summary: {} }));
    expect(!read.ok && read.error.message).toMatch(
      /^r\.json: this is a run report, not a baseline; record one from it with "sql-verdict baseline record/,
    );
  });

  it('refuses a hand-edited baseline whose figures count more cases than it lists, or whose cases and case_ids disagree', () => {
    const edit = (change: (b: Baseline) => void) => {
      const b = JSON.parse(text) as Baseline;
      change(b);
      const read = readBaselineFile('b.json', JSON.stringify(b, null, 2));
      return read.ok ? 'ok' : read.error.message;
    };
    expect(edit(() => {})).toBe('ok');
    expect(
      edit((b) => {
        b.figures.answer_accuracy = { correct: 90, total: 100 };
      }),
    ).toMatch(/\(field figures\.answer_accuracy\): .*figures\.answer_accuracy\.total is 100, but the baseline has 4 /);
    expect(
      edit((b) => {
        b.cases[1]!.id = 'someone-else';
      }),
    ).toMatch(/\(field cases\): .*cases\[1\] is "someone-else" but case_ids\[1\] is /);
    expect(
      edit((b) => {
        b.cases.pop();
      }),
    ).toMatch(/cases lists 3 cases but case_ids 4/);
  });
});
