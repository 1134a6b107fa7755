/**
 * The gate's policy is the contract's: a baseline never supplies thresholds
 * (one edited to a 50-point tolerance is refused, not obeyed); an explicit
 * policy is used and recorded; and a report's summary is recomputed from its
 * cases, so an edited figure is refused with the field named.
 */
import { describe, expect, it } from 'vitest';
import { parsePolicy, recordBaseline, type Baseline } from '../../src/core/gate/baseline.ts';
import { applyGate } from '../../src/core/gate/gate.ts';
import { DEFAULT_GATE_POLICY } from '../../src/core/gate/policy.ts';
import { checkReportSummary, readReportFile } from '../../src/core/gate/report-file.ts';
import { READABLE_RUN_REPORT_VERSIONS, RUN_REPORT_VERSION } from '../../src/core/gate/report-version.ts';
import { mixCases, summary } from './build.ts';

const good = summary(mixCases({ correct: 50, wrong: 0 }));
const dropped = summary(mixCases({ correct: 30, wrong: 20 })); // 100% → 60%: a 40-point drop
const recorded = recordBaseline(good, { date: '2026-11-30' });
if (!recorded.ok) throw new Error(recorded.error.message);
const baseline: Baseline = recorded.value;
const loosened = { ...baseline, policy: { ...baseline.policy, accuracy_tolerance_points: 50 } };

describe('thresholds come from the policy in force, never from the baseline', () => {
  it('the documented policy blocks a 40-point drop', () => {
    const g = applyGate(dropped, baseline);
    expect(g.status).toBe('blocked');
    expect(g.policy).toEqual({ values: DEFAULT_GATE_POLICY, file: null, sha256: null });
  });

  it('a baseline edited to a 50-point tolerance is refused, naming the threshold', () => {
    const g = applyGate(dropped, loosened);
    expect(g).toMatchObject({ status: 'refused', exit_code: 2 });
    expect(g.reasons).toEqual([
      "baseline policy ≠ the documented gate policy (accuracy_tolerance_points 50 in the baseline, 2 in force): REFUSED (thresholds come from the gate's policy, never from a baseline)",
    ]);
  });

  it("an explicit policy equal to the baseline's is applied and recorded with its file and digest", () => {
    const policy = { ...DEFAULT_GATE_POLICY, accuracy_tolerance_points: 50 };
    const g = applyGate(dropped, loosened, { policy, policyFile: { file: 'loose.json', sha256: 'b'.repeat(64) } });
    expect(g.status).toBe('pass');
    expect(g.policy).toEqual({ values: policy, file: 'loose.json', sha256: 'b'.repeat(64) });
    // …and the same explicit policy refuses a baseline recorded under the default one.
    const refused = applyGate(dropped, baseline, {
      policy,
      policyFile: { file: 'loose.json', sha256: 'b'.repeat(64) },
    });
    expect(refused.reasons[0]).toMatch(
      /^baseline policy ≠ the policy file loose\.json \(accuracy_tolerance_points 2 in the baseline, 50 in force\)/,
    );
  });

  it('a policy file names every threshold and nothing else', () => {
    expect(parsePolicy({ ...DEFAULT_GATE_POLICY }).ok).toBe(true);
    const missing = parsePolicy({ accuracy_tolerance_points: 2 });
    expect(!missing.ok && missing.error.message).toMatch(/^recall_absolute_floor is missing/);
    const unknown = parsePolicy({ ...DEFAULT_GATE_POLICY, accuracy_tolerance: 5 });
    expect(!unknown.ok && unknown.error.message).toMatch(/^unknown field "accuracy_tolerance"/);
    const range = parsePolicy({ ...DEFAULT_GATE_POLICY, recall_tolerance: 3 });
    expect(!range.ok && range.error).toMatchObject({ location: 'recall_tolerance' });
  });
});

describe("the summary is recomputed from the report's cases", () => {
  const report = (s: unknown) => ({ report_version: RUN_REPORT_VERSION, kind: 'run', summary: s });
  const json = (s: unknown) => JSON.parse(JSON.stringify(s));

  it('accepts a consistent report', () => {
    expect(checkReportSummary(report(json(dropped)))).toMatchObject({ ok: true });
  });

  it('refuses an edited figure, naming the field and both values', () => {
    const edited = json(dropped);
    edited.answer_accuracy.correct = 50;
    const out = checkReportSummary(report(edited));
    expect(!out.ok && out.error.message).toBe(
      'the summary disagrees with the report\'s own cases at summary.answer_accuracy.correct (50; the cases give 30): the report was edited or is corrupt; re-run "sql-verdict run" to get a consistent one.',
    );
  });

  it('refuses an edited case outcome the figures do not follow', () => {
    const edited = json(dropped);
    edited.cases[40].outcome = 'correct';
    const out = checkReportSummary(report(edited));
    expect(!out.ok && out.error.location).toMatch(/^summary\.(outcomes|answer_accuracy)/);
  });

  it('reads every report_version this code has written, and refuses a missing or newer one naming the field', () => {
    expect(READABLE_RUN_REPORT_VERSIONS).toEqual(['1.0.0', '1.1.0', '1.2.0']);
    expect(READABLE_RUN_REPORT_VERSIONS.at(-1)).toBe(RUN_REPORT_VERSION);
    for (const version of READABLE_RUN_REPORT_VERSIONS) {
      const text = JSON.stringify({ ...report(json(dropped)), report_version: version }, null, 2);
      expect(readReportFile('report.json', text)).toMatchObject({ ok: true });
    }
    const newer = JSON.stringify({ ...report(json(dropped)), report_version: '2.0.0' }, null, 2);
    const out = readReportFile('newer.json', newer);
    expect(!out.ok && out.error.message).toBe(
      'newer.json:2 (field report_version): report_version 2.0.0 is not one this sql-verdict can read (this sql-verdict reads run reports of version 1.0.0, 1.1.0, 1.2.0): a newer sql-verdict wrote it, or it was edited; use the sql-verdict that wrote it, or re-run "sql-verdict run".',
    );
    const { report_version: _dropped, ...unversioned } = report(json(dropped));
    const missing = readReportFile('old.json', JSON.stringify(unversioned, null, 2));
    expect(!missing.ok && missing.error.message).toMatch(
      /^old\.json \(field report_version\): report_version is missing: /,
    );
  });

  it('names file, line and field for a malformed summary', () => {
    const edited = json(dropped);
    delete edited.run.model;
    edited.run.model = 7;
    const text = JSON.stringify(report(edited), null, 2);
    const out = readReportFile('report.json', text);
    const line = text.split('\n').findIndex((l) => l.includes('"model": 7')) + 1;
    expect(!out.ok && out.error.message).toBe(
      `report.json:${line} (field summary.run.model): summary.run.model must be a string or null.`,
    );
  });
});
