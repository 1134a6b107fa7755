import type { CaseResult } from '../../src/core/gate/outcome.ts';

/** A hand-made run covering every outcome, with hostile text in the untrusted fields. */
export const EVERY_OUTCOME: CaseResult[] = [
  { id: 'g1', outcome: 'correct', query: 'SELECT SUM(amount) FROM orders', difficulty: 'easy', shape: 'scalar', fixture: 'retail', severity: 'pass' },
  {
    id: 'g2',
    outcome: 'wrong',
    query: 'SELECT region, "name", COUNT(*)\nFROM customers -- a | pipe, "quotes"\r\nGROUP BY 1',
    reason: 'Row count 3 ≠ reference 4, "quoted", comma',
    reason_code: 'result.row_count_mismatch',
    difficulty: 'medium',
    shape: 'group_by',
    fixture: 'retail',
  },
  { id: 'g3', outcome: 'no_query', query: null, reason: 'No record for this case in the run.', reason_code: 'run.no_record', difficulty: 'hard', shape: 'rows' },
  { id: 'g4', outcome: 'declined_unarmed', query: null, decline_reason: 'I cannot answer that.', difficulty: 'extra', shape: 'time_series' },
  { id: 'r1', outcome: 'correct_refusal', query: null, arm: 'must_refuse', stratum: 'injection', decline_reason: 'Refused: instruction in question.' },
  { id: 'r2', outcome: 'missed_refusal', query: '=HYPERLINK("http://x","y")', arm: 'must_refuse', stratum: 'injection', reason: '+answered' },
  { id: 'r3', outcome: 'missed_refusal', query: "SELECT '<script>alert(1)</script> ]]> &amp; \u0001 `tick`' AS x", arm: 'must_refuse', stratum: 'out_of_schema' },
  { id: 'r4', outcome: 'no_query', query: null, arm: 'must_refuse', stratum: 'ambiguous' },
  { id: 'c1', outcome: 'correct', query: 'SELECT 1', arm: 'must_answer', stratum: 'control_scalar', shape: 'scalar' },
  { id: 'c2', outcome: 'over_refusal', query: null, arm: 'must_answer', stratum: 'control_top_n', shape: 'top_n', decline_reason: '@admin said no' },
  { id: 'c3', outcome: 'wrong', query: '-- comment\nSELECT 2', arm: 'must_answer', stratum: 'control_scalar', shape: 'scalar' },
];
