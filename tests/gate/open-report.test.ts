/**
 * Opening a CLI run report in the app (core): the JSON `run --out` writes and
 * its JSONL forms open with the CLI's counts; an edited, cut or misshapen
 * report is refused with the file, line and field.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRunReport } from '../../src/core/gate/open-report.ts';
import { readReportFile } from '../../src/core/gate/report-file.ts';
import type { RunReport } from '../../src/core/run/grade-run.ts';
import { runCliSync } from '../helpers/cli.ts';

let dir: string;
let text: string;
let report: RunReport;
const bytes = (s: string) => new TextEncoder().encode(s);

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'open-report-'));
  const out = path.join(dir, 'bird.json');
  const b = 'fixtures/benchmarks/bird-sample';
  const r = runCliSync([
    'run',
    '--format',
    'bird',
    '--questions',
    `${b}/dev.json`,
    '--pred',
    `${b}/predict_dev.json`,
    '--db-dir',
    `${b}/dev_databases`,
    '--out',
    out,
  ]);
  if (r.code !== 1) throw new Error(`CLI exited ${r.code}: ${r.stderr}`);
  text = readFileSync(out, 'utf8');
  report = JSON.parse(text) as RunReport;
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('openRunReport', () => {
  it('opens the JSON report of a BIRD run with its own difficulty names (the gate check accepts them too)', () => {
    expect(readReportFile('bird.json', text).ok).toBe(true);
    const opened = openRunReport('bird.json', bytes(text));
    expect(opened.ok).toBe(true);
    if (!opened.ok) return;
    expect(opened.value.form).toBe('json');
    expect(opened.value.report.summary.answer_accuracy).toEqual(report.summary.answer_accuracy);
    expect(opened.value.report.cases.map((c) => c.difficulty)).toEqual([
      'simple',
      'simple',
      'moderate',
      'moderate',
      'challenging',
      'challenging',
    ]);
    expect(opened.value.report.cases[0]!.evidence).toMatch(/Lisbon/);
  });

  it('opens both JSONL forms: the report on one line, and a head line with one case per line', () => {
    const one = openRunReport('bird.jsonl', bytes(`${JSON.stringify(report)}\n`));
    expect(one.ok && one.value.form).toBe('jsonl');
    const { cases, ...head } = report;
    const lines = [JSON.stringify(head), ...cases.map((c) => JSON.stringify(c))].join('\n');
    const split = openRunReport('bird.jsonl', bytes(lines));
    expect(split.ok).toBe(true);
    if (split.ok) expect(split.value.report.cases.map((c) => c.outcome)).toEqual(report.cases.map((c) => c.outcome));
  });

  it('refuses a report of a report_version it cannot read, as the gate does, in both forms', () => {
    const newer = { ...report, report_version: '9.0.0' };
    const json = openRunReport('newer.json', bytes(JSON.stringify(newer, null, 2)));
    expect(!json.ok && json.error.message).toMatch(
      /^newer\.json:2 \(field report_version\): report_version 9\.0\.0 is not one this sql-verdict can read/,
    );
    const { cases, ...head } = newer;
    const jsonl = openRunReport('newer.jsonl', bytes([head, ...cases].map((v) => JSON.stringify(v)).join('\n')));
    expect(!jsonl.ok && jsonl.error.message).toMatch(
      /^newer\.jsonl:1 \(field report_version\): report_version 9\.0\.0 is not one this sql-verdict can read/,
    );
  });

  it('refuses an edited verdict, a cut report and a bad line, naming file, line and field', () => {
    const edited = structuredClone(report);
    edited.cases[1]!.outcome = 'correct';
    const r1 = openRunReport('edited.json', bytes(JSON.stringify(edited, null, 2)));
    expect(!r1.ok && r1.error.message).toMatch(
      /^edited\.json \(field cases\[1\]\.outcome\): .*case q0001.*summary says wrong/,
    );
    const summaryEdited = structuredClone(report);
    summaryEdited.summary.answer_accuracy.correct = 6;
    const r2 = openRunReport('edited.json', bytes(JSON.stringify(summaryEdited, null, 2)));
    expect(!r2.ok && r2.error.message).toMatch(
      /^edited\.json:\d+ \(field summary\.answer_accuracy\.correct\): the summary disagrees/,
    );
    const r3 = openRunReport('cut.json', bytes(text.slice(0, Math.floor(text.length / 2))));
    expect(!r3.ok && r3.error.message).toMatch(/^cut\.json(:\d+)?: not valid JSON/);
    const { cases, ...head } = report;
    const lines = [JSON.stringify(head), ...cases.map((c) => JSON.stringify(c))];
    lines[3] = lines[3]!.slice(0, 40);
    const r4 = openRunReport('bird.jsonl', bytes(lines.join('\n')));
    expect(!r4.ok && r4.error.message).toMatch(/^bird\.jsonl:4: not valid JSON/);
    const dropped = [JSON.stringify(head), ...cases.slice(1).map((c) => JSON.stringify(c))];
    const r5 = openRunReport('bird.jsonl', bytes(dropped.join('\n')));
    expect(!r5.ok && r5.error.message).toMatch(
      /^bird\.jsonl:1 \(field cases\): cases has 5 case reports but summary\.cases has 6/,
    );
    const noQuestion = [
      JSON.stringify(head),
      ...cases.map((c, i) => JSON.stringify(i === 2 ? { ...c, question: 7 } : c)),
    ];
    const r6 = openRunReport('bird.jsonl', bytes(noQuestion.join('\n')));
    expect(!r6.ok && r6.error.message).toMatch(/^bird\.jsonl:4 \(field cases\[2\]\.question\)/);
    const notReport = openRunReport('run.json', bytes('{"records": []}'));
    expect(!notReport.ok && notReport.error.message).toMatch(/field kind.*kind must be "run"/);
  });
});
