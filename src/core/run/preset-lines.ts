/**
 * The lines a report under a policy preset prints (`sql-verdict run --policy …`):
 * the preset's accuracy, SQL Verdict's own beside it, how many cases the two
 * decide differently and why, and BIRD's EX / Soft-F1 / R-VES / VES. Here in core so
 * the CLI and the app's results view show the same text.
 */
import { percent } from '../gate/interval.ts';
import type { RunReport } from './grade-run.ts';
import { POLICY_DIFFERENCES, type BirdFigures, type PolicyDifference } from './preset-report.ts';

/** As every summary prints a rate: never 100.0% below 100%, nor 0.0% above 0%. */
function pct(n: number, d: number): string {
  return d === 0 ? '—' : percent(n / d);
}

/** Accuracy under a policy preset, SQL Verdict's own beside it, the named differences and BIRD's metrics. */
export function presetLines(report: Pick<RunReport, 'summary' | 'policy_preset'>): string[] {
  const a = report.summary.answer_accuracy;
  const p = report.policy_preset;
  const lines: string[] = [];
  if (p) {
    const n = p.native_answer_accuracy;
    lines.push(
      `Answer accuracy (policy ${p.preset}${p.keep_distinct ? ', keep-distinct' : ''}): ${a.correct}/${a.total} (${pct(a.correct, a.total)})`,
      `SQL Verdict's own policy: ${n.correct}/${n.total} (${pct(n.correct, n.total)}); the policies differ on ${p.differences.preset_pass_native_fail.length + p.differences.preset_fail_native_pass.length} case(s): ` +
        `${p.differences.preset_pass_native_fail.length} pass only under ${p.preset}, ${p.differences.preset_fail_native_pass.length} only under SQL Verdict's`,
    );
    for (const [name, count] of Object.entries(p.difference_reasons))
      lines.push(`  ${count} × ${name}: ${POLICY_DIFFERENCES[name as PolicyDifference]}`);
    const b = p.bird_metrics;
    if (b) {
      // `ves` is absent from reports written before it was added: printed only when there.
      const f = (x: BirdFigures) =>
        `EX ${x.ex.toFixed(2)}, Soft-F1 ${x.soft_f1.toFixed(2)}${x.r_ves === null ? '' : `, R-VES ${x.r_ves.toFixed(2)}`}${x.ves === null || x.ves === undefined ? '' : `, VES ${x.ves.toFixed(2)}`}`;
      lines.push(`BIRD: ${f(b)}${b.r_ves === null ? ' (R-VES and VES: --ves-iterations N)' : ''}`);
      for (const d of b.by_difficulty) lines.push(`  ${d.difficulty} (${d.cases}): ${f(d)}`);
    }
  }
  return lines;
}
