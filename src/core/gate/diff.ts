/**
 * Run versus run on the same corpus (SPEC 4 "Agent comparison"): per case
 * fixed, regressed or unchanged, and McNemar's exact test on the discordant
 * pairs. "Right" is a correct answer or a correct refusal; every other
 * outcome is wrong, but a broken reference (in either run) is not graded: it is
 * outside the counts, the right answers and the interval.
 */
import { fail, ok, type Outcome } from '../errors.ts';
import { newcombePaired, type PairedDifference } from './interval.ts';
import { mcnemarExact, type McNemarResult } from './mcnemar.ts';
import { isSuccess, type CaseOutcome } from './outcome.ts';
import type { GradedFixture } from './report-file.ts';
import type { RunSummary } from './summary.ts';

/** not_graded: a broken reference in either run (SPEC 4: not graded), outside every figure of the comparison. */
export type CaseChange = 'fixed' | 'regressed' | 'unchanged_right' | 'unchanged_wrong' | 'not_graded';

export interface CaseDiff {
  id: string;
  a: CaseOutcome;
  b: CaseOutcome;
  change: CaseChange;
  /** The outcome changed without a change of right/wrong (e.g. wrong → no_query). */
  outcome_changed: boolean;
}

export interface RunDiff {
  corpus: RunSummary['corpus'];
  a: RunSummary['run'];
  b: RunSummary['run'];
  counts: {
    fixed: number;
    regressed: number;
    unchanged_right: number;
    unchanged_wrong: number;
    outcome_changed: number;
    not_graded: number;
  };
  /** Over the graded pairs (total: the cases minus not_graded). */
  right: { a: number; b: number; total: number };
  fixed_ids: string[];
  regressed_ids: string[];
  /** b = regressed, c = fixed. */
  mcnemar: McNemarResult;
  /** B's success rate minus A's with Newcombe's paired 95% interval (hybrid Wilson score, method 10). */
  difference: PairedDifference;
  /** In corpus order (run A's). */
  cases: CaseDiff[];
}

/**
 * How the fixtures of two runs differ (by name): another content digest, another as-of instant, a fixture graded
 * in one run only. A case fixed or regressed between such runs may be the data's doing, not the system's: diff
 * says so beside its figures. Empty when they agree, or when either report does not list its fixtures.
 */
export function fixtureDifferences(a: GradedFixture[] | null, b: GradedFixture[] | null): string[] {
  if (!a || !b) return [];
  const byName = (list: GradedFixture[]) => new Map(list.map((f) => [f.name, f]));
  const [inA, inB] = [byName(a), byName(b)];
  const clock = (f: GradedFixture) => f.as_of ?? 'the real clock';
  const short = (digest: string | undefined) => (digest ? `${digest.slice(0, 12)}…` : 'none');
  const out: string[] = [];
  for (const name of [...new Set([...inA.keys(), ...inB.keys()])]) {
    const [x, y] = [inA.get(name), inB.get(name)];
    if (!x || !y) {
      out.push(`fixture ${name} was graded in run ${x ? 'A' : 'B'} only.`);
      continue;
    }
    if (x.content_digest_before !== y.content_digest_before)
      out.push(
        `fixture ${name} has other content: digest ${short(x.content_digest_before)} in run A, ${short(y.content_digest_before)} in run B.`,
      );
    if (clock(x) !== clock(y))
      out.push(
        `fixture ${name} was graded as of ${clock(x)} in run A, ${clock(y)} in run B (relative dates answer otherwise).`,
      );
  }
  return out;
}

function preview(ids: string[]): string {
  return ids.length <= 10 ? ids.join(', ') : `${ids.slice(0, 10).join(', ')} and ${ids.length - 10} more`;
}

/** Compare two graded runs; refuses runs of different corpora (digest or case ids). */
export function diffRuns(a: RunSummary, b: RunSummary): Outcome<RunDiff> {
  if (a.corpus.sha256 !== b.corpus.sha256) {
    return fail(
      'input.invalid',
      `The two runs graded different corpora (SHA-256 ${a.corpus.sha256} vs ${b.corpus.sha256}); a paired comparison needs the same corpus.`,
      {
        location: 'corpus.sha256',
      },
    );
  }
  const idsA = a.cases.map((k) => k.id);
  const byIdB = new Map(b.cases.map((k) => [k.id, k]));
  const onlyA = idsA.filter((id) => !byIdB.has(id));
  const setA = new Set(idsA);
  const onlyB = b.cases.map((k) => k.id).filter((id) => !setA.has(id));
  if (onlyA.length || onlyB.length || setA.size !== idsA.length || byIdB.size !== b.cases.length) {
    const parts = [
      onlyA.length ? `only in A: ${preview(onlyA)}` : '',
      onlyB.length ? `only in B: ${preview(onlyB)}` : '',
    ].filter(Boolean);
    return fail(
      'input.invalid',
      `The two runs do not cover the same case ids${parts.length ? ` (${parts.join('; ')})` : ' (duplicate ids)'}.`,
      { location: 'cases' },
    );
  }
  const cases: CaseDiff[] = a.cases.map((ka) => {
    const kb = byIdB.get(ka.id)!;
    const ra = isSuccess(ka.outcome);
    const rb = isSuccess(kb.outcome);
    const change: CaseChange =
      ka.outcome === 'broken_reference' || kb.outcome === 'broken_reference'
        ? 'not_graded'
        : ra && rb
          ? 'unchanged_right'
          : !ra && !rb
            ? 'unchanged_wrong'
            : rb
              ? 'fixed'
              : 'regressed';
    return {
      id: ka.id,
      a: ka.outcome,
      b: kb.outcome,
      change,
      outcome_changed: ka.outcome !== kb.outcome && (change === 'unchanged_right' || change === 'unchanged_wrong'),
    };
  });
  const of = (c: CaseChange) => cases.filter((k) => k.change === c);
  const fixed = of('fixed').map((k) => k.id);
  const regressed = of('regressed').map((k) => k.id);
  return ok({
    corpus: a.corpus,
    a: a.run,
    b: b.run,
    counts: {
      fixed: fixed.length,
      regressed: regressed.length,
      unchanged_right: of('unchanged_right').length,
      unchanged_wrong: of('unchanged_wrong').length,
      outcome_changed: cases.filter((k) => k.outcome_changed).length,
      not_graded: of('not_graded').length,
    },
    right: {
      a: of('unchanged_right').length + regressed.length,
      b: of('unchanged_right').length + fixed.length,
      total: cases.length - of('not_graded').length,
    },
    fixed_ids: fixed,
    regressed_ids: regressed,
    mcnemar: mcnemarExact(regressed.length, fixed.length),
    difference: newcombePaired(
      of('unchanged_right').length,
      regressed.length,
      fixed.length,
      of('unchanged_wrong').length,
    ),
    cases,
  });
}
