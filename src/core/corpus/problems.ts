/**
 * Problems found while loading a corpus or a run: data with a stable code and
 * a location (file, line, case id, field), never an exception. A bad case is
 * always named here; it never silently disappears.
 */
import { verdictError, type VerdictError } from '../errors.ts';

export const PROBLEM_CODES = {
  file_too_large: 'The file is larger than the size limit.',
  not_utf8: 'The file is not valid UTF-8.',
  syntax_error: 'The file is not valid YAML or JSON.',
  not_a_mapping: 'The document must be a mapping with the corpus fields and a list of cases.',
  missing_field: 'A required field is missing.',
  invalid_field: 'A field has the wrong type or an invalid value.',
  unknown_field: 'A field is not part of the format (a typo?).',
  duplicate_id: 'Two cases share one id.',
  unknown_fixture: 'The case names a fixture that does not exist.',
  unknown_shape: 'The shape is not one of scalar, group_by, top_n, time_series, rows.',
  unknown_difficulty:
    'The difficulty is not one of easy, medium, hard, extra (Spider) or simple, moderate, challenging (BIRD).',
  missing_reference: 'The case has no reference SQL.',
  unexpected_reference: 'A must_refuse case carries a reference SQL.',
  unknown_arm: 'The arm is not must_refuse or must_answer.',
  unknown_stratum: 'The stratum does not belong to the arm.',
  bad_expected: 'The frozen expected result is malformed.',
  shape_contradiction: 'The expected result or a flag contradicts the declared shape.',
  count_mismatch: 'A count the file declares differs from what it contains.',
  empty_corpus: 'The corpus has no cases.',
  duplicate_record: 'Two run records share one case id.',
  unknown_case: 'A run record names a case id the corpus does not have.',
  run_metadata: 'Run metadata is missing or incomplete.',
  inconsistent_record: 'A run record contradicts itself or its run.',
  missing_database: 'The database folder has no database file for this db_id.',
  bad_separator: 'A BIRD prediction is not "SQL<TAB>----- bird -----<TAB>db_id".',
  keyed_by_position: 'BIRD predictions are keyed by position (0, 1, ...), not by question_id.',
  unknown_format: 'The benchmark format cannot be told from the files.',
  empty_file: 'The file is empty.',
  corpus_mismatch: 'The run declares another corpus, or another version of it, than the one graded.',
} as const;

export type ProblemCode = keyof typeof PROBLEM_CODES;

export interface LoadProblem {
  severity: 'error' | 'warning';
  code: ProblemCode;
  message: string;
  file: string;
  /** 1-based. */
  line?: number;
  /** 1-based. */
  column?: number;
  case_id?: string;
  /** 0-based position of the case (or run record) in its list. */
  case_index?: number;
  field?: string;
}

/** "file:line:column: error [code] case 'id' field 'x': message" */
export function formatProblem(p: LoadProblem): string {
  let where = p.file;
  if (p.line !== undefined) where += `:${p.line}`;
  if (p.line !== undefined && p.column !== undefined) where += `:${p.column}`;
  const subject = [
    p.case_id !== undefined ? `case '${p.case_id}'` : p.case_index !== undefined ? `case #${p.case_index + 1}` : '',
    p.field !== undefined ? `field '${p.field}'` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return `${where}: ${p.severity} [${p.code}]${subject ? ` ${subject}` : ''}: ${p.message}`;
}

/** Problems of one severity and code printed before the rest are only counted. */
export const PROBLEMS_PER_CODE = 20;

/**
 * The problems as lines, at most `perCode` of each severity and code, then one line counting the rest: a file
 * broken the same way on every line (1,500 BIRD predictions without the separator) reads as 20 examples and a
 * count, not a screenful per question.
 */
export function problemLines(problems: readonly LoadProblem[], perCode = PROBLEMS_PER_CODE): string[] {
  const seen = new Map<string, { severity: string; code: string; files: Set<string>; count: number }>();
  const lines: string[] = [];
  for (const p of problems) {
    const key = `${p.severity} ${p.code}`;
    const kind = seen.get(key) ?? { severity: p.severity, code: p.code, files: new Set<string>(), count: 0 };
    seen.set(key, kind);
    kind.count++;
    if (kind.count <= perCode) lines.push(formatProblem(p));
    else kind.files.add(p.file);
  }
  for (const { severity, code, files, count } of seen.values())
    if (count > perCode)
      lines.push(
        `${[...files].join(', ')}: … ${count - perCode} more ${severity === 'error' ? 'errors' : 'warnings'} [${code}] like the ${perCode} above (${count} in all).`,
      );
  return lines;
}

export function hasErrors(problems: readonly LoadProblem[]): boolean {
  return problems.some((p) => p.severity === 'error');
}

/** The problem as a catalogue error (`input.invalid`) whose location names file, line, case and field. */
export function problemToVerdictError(p: LoadProblem): VerdictError {
  const location = [
    p.line !== undefined ? `${p.file}:${p.line}` : p.file,
    p.case_id !== undefined ? `case ${p.case_id}` : p.case_index !== undefined ? `case #${p.case_index + 1}` : '',
    p.field !== undefined ? `field ${p.field}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return verdictError('input.invalid', `${p.message} [${p.code}]`, { location });
}
