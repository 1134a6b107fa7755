/**
 * Absolute thresholds for `run`, for teams without a baseline: the exit status follows them
 * instead of "any failing case". Compared exactly, in whole cases (0.85 of 20 needs 17).
 */
import type { RunSummary } from '../core/gate/summary.ts';
import { cmp, fromDecimal, rat, toFixed } from '../core/gate/rational.ts';
import { CliError } from './cli-error.ts';

export const THRESHOLD_HELP = `  --min-accuracy X       exit 0 only when answer accuracy ≥ X (0–1 or "85%"), whatever
                         else fails; for teams without a baseline (the gate uses one)
  --min-refusal-recall X exit 1 when refusal recall (must_refuse arm) < X
  --max-over-refusal X   exit 1 when over-refusal (must_answer arm) > X`;

interface Fraction {
  text: string;
  num: bigint;
  den: bigint;
}

export interface Thresholds {
  minAccuracy?: Fraction;
  minRefusalRecall?: Fraction;
  maxOverRefusal?: Fraction;
}

function fraction(flag: string, raw: string | undefined): Fraction | undefined {
  if (raw === undefined) return undefined;
  const m = /^(\d+)(?:\.(\d+))?(%?)$/.exec(raw.trim());
  if (!m) throw new CliError(`${flag} must be a number from 0 to 1 or a percentage ("0.85", "85%"), got "${raw}".`);
  const decimals = m[2] ?? '';
  const num = BigInt(`${m[1]}${decimals}`);
  let den = 10n ** BigInt(decimals.length);
  if (m[3]) den *= 100n;
  if (num > den) throw new CliError(`${flag} must be at most 1 (100%), got "${raw}".`);
  return { text: raw.trim(), num, den };
}

export function parseThresholds(values: Record<string, unknown>): Thresholds {
  const t: Thresholds = {};
  const a = fraction('--min-accuracy', values['min-accuracy'] as string | undefined);
  const r = fraction('--min-refusal-recall', values['min-refusal-recall'] as string | undefined);
  const o = fraction('--max-over-refusal', values['max-over-refusal'] as string | undefined);
  if (a) t.minAccuracy = a;
  if (r) t.minRefusalRecall = r;
  if (o) t.maxOverRefusal = o;
  return t;
}

/**
 * n/d as a percentage with one decimal, or as many more as it takes for the printed figure to
 * sit on the side of the threshold the exact comparison found: 2/3 against 66.7% is "66.67%"
 * (one decimal printed "(66.7%) < 66.7%"), 1999/2000 against 1 is "99.95%", not "100.0%".
 */
function pct(n: number, d: number, f: Fraction): string {
  const exact = rat(100 * n, d);
  const threshold = rat(100n * f.num, f.den);
  const side = cmp(exact, threshold);
  for (let digits = 1; ; digits++) {
    const text = toFixed(exact, digits);
    const printed = fromDecimal(text)!;
    if (side === 0 || cmp(printed, threshold) === side || digits >= 12) return `${text}%`;
  }
}

/** One line per threshold given ("Threshold met/NOT met: ..."), and whether all are met. */
export function checkThresholds(summary: RunSummary, t: Thresholds): { met: boolean; lines: string[] } {
  const lines: string[] = [];
  let met = true;
  const check = (name: string, n: number, d: number, f: Fraction | undefined, atLeast: boolean) => {
    if (!f) return;
    if (d === 0) {
      met = false;
      lines.push(
        `Threshold NOT met: ${name} cannot be measured (no cases in its denominator), required ${atLeast ? '≥' : '≤'} ${f.text}`,
      );
      return;
    }
    // n/d ≥ num/den  ⇔  n·den ≥ num·d, exactly.
    const ok = atLeast ? BigInt(n) * f.den >= f.num * BigInt(d) : BigInt(n) * f.den <= f.num * BigInt(d);
    if (!ok) met = false;
    lines.push(
      `Threshold ${ok ? 'met' : 'NOT met'}: ${name} ${n}/${d} (${pct(n, d, f)}) ${ok ? (atLeast ? '≥' : '≤') : atLeast ? '<' : '>'} ${f.text}`,
    );
  };
  check('answer accuracy', summary.answer_accuracy.correct, summary.answer_accuracy.total, t.minAccuracy, true);
  check('refusal recall', summary.refusal_recall.declined, summary.refusal_recall.total, t.minRefusalRecall, true);
  check('over-refusal', summary.over_refusal.declined, summary.over_refusal.total, t.maxOverRefusal, false);
  return { met, lines };
}
