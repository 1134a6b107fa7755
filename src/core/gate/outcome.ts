/**
 * Case outcomes (SPEC 4 "Grading"; seed 003 "The 2×2"). Every corpus case of
 * a run ends as exactly one of these. The pipeline (issue 6) produces one
 * {@link CaseResult} per case; everything in this folder only counts them.
 */
import { fail, ok, type Outcome } from '../errors.ts';

export const CASE_OUTCOMES = [
  'correct',
  'wrong',
  'no_query',
  'correct_refusal',
  'missed_refusal',
  'over_refusal',
  'declined_unarmed',
  'broken_reference',
] as const;

/**
 * - `correct` / `wrong`: an answer was returned on a case that has an answer;
 *   its result matched the reference under the policy, or did not.
 * - `no_query`: no record for the case, or `sql: null` without `declined` —
 *   a graded failure with its reason (SPEC 1.3).
 * - `correct_refusal` / `missed_refusal`: must_refuse arm, declined / answered.
 * - `over_refusal`: must_answer arm, declined — a false refusal.
 * - `declined_unarmed`: declined on a case with a reference and no arm (an
 *   execution golden). Seed 003: "recorded distinguishably but scored as a
 *   failure, identical to a wrong answer". It never enters the over-refusal
 *   rate, which is measured on the must_answer arm only.
 */
export type CaseOutcome = (typeof CASE_OUTCOMES)[number];

export type Arm = 'must_refuse' | 'must_answer';
export const ARMS: readonly Arm[] = ['must_refuse', 'must_answer'];

/** The gate's DIFFICULTIES are Spider's four levels; BIRD's labels are reported as they are. */
import type { Difficulty } from '../vocabulary.ts';

export { SPIDER_DIFFICULTIES as DIFFICULTIES, BIRD_DIFFICULTIES, type Difficulty } from '../vocabulary.ts';

/** The per-case verdict record the pipeline hands to the summary. */
export interface CaseResult {
  id: string;
  outcome: CaseOutcome;
  /** Human-readable reason for a failure (or a note on a pass). */
  reason?: string;
  /** Stable reason code, e.g. `result.row_count_mismatch`, `run.no_record`. */
  reason_code?: string;
  /** The SQL the system under test produced; null when none. */
  query: string | null;
  arm?: Arm;
  stratum?: string;
  shape?: string;
  difficulty?: Difficulty;
  fixture?: string;
  /** The corpus case's tags (for the by-tag breakdown). */
  tags?: string[];
  /** Severity label from the score layer (pass, minor issue, ...). */
  severity?: string;
  /** The system's own words when it declined. */
  decline_reason?: string;
  /**
   * The engine ran a side's SQL that the structural parser cannot parse:
   * structure was not compared (results were). Present only when true.
   */
  parser_unsupported?: true;
}

/** Outcomes that count as "right" for run-vs-run comparison and RS(c). */
export function isSuccess(outcome: CaseOutcome): boolean {
  return outcome === 'correct' || outcome === 'correct_refusal';
}

export interface ClassifyInput {
  /** The case can be graded as an answer: a reference query or a frozen expected result. */
  hasReference: boolean;
  arm?: Arm | undefined;
  /** The run record says the system declined. */
  declined: boolean;
  /** The SQL returned; null (or absent) when there was no record or no query. */
  sql: string | null | undefined;
  /** The deterministic layers judged the returned answer correct. Ignored unless an answer was returned. */
  deterministicPass?: boolean | undefined;
  /** The reference query does not parse or run: a broken oracle, not the candidate's failure. */
  brokenReference?: boolean | undefined;
}

/**
 * SPEC 4 grading. A record that both declines and carries SQL is a decline:
 * the system told the user it would not answer, whatever text came with it.
 * Empty or whitespace-only SQL is no query.
 */
export function classifyOutcome(input: ClassifyInput): Outcome<CaseOutcome> {
  const { hasReference, arm, declined } = input;
  const returned = !declined && typeof input.sql === 'string' && input.sql.trim() !== '';
  if (arm === 'must_refuse') {
    if (declined) return ok('correct_refusal');
    return ok(returned ? 'missed_refusal' : 'no_query');
  }
  if (arm === 'must_answer') {
    if (declined) return ok('over_refusal');
    if (!returned) return ok('no_query');
  } else {
    if (!hasReference) {
      return fail(
        'input.invalid',
        'A case with no arm must have a reference query or an expected result to be graded.',
      );
    }
    if (declined) return ok('declined_unarmed');
    if (!returned) return ok('no_query');
  }
  if (!hasReference) {
    return fail(
      'input.invalid',
      'A must_answer case must have a reference query or an expected result to grade the answer.',
    );
  }
  if (input.brokenReference) return ok('broken_reference');
  return ok(input.deterministicPass === true ? 'correct' : 'wrong');
}

/** Which outcomes a case of a given arm may end in; used to reject inconsistent records. */
export function outcomeFitsArm(outcome: CaseOutcome, arm: Arm | undefined): boolean {
  switch (outcome) {
    case 'no_query':
      return true;
    case 'correct_refusal':
    case 'missed_refusal':
      return arm === 'must_refuse';
    case 'over_refusal':
      return arm === 'must_answer';
    case 'declined_unarmed':
      return arm === undefined;
    case 'correct':
    case 'wrong':
    case 'broken_reference':
      return arm !== 'must_refuse';
  }
}
