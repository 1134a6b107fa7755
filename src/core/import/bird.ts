/**
 * BIRD as its users have it: dev.json (or mini_dev_*.json), a list of
 * {question_id, db_id, question, evidence, SQL, difficulty}; predict_*.json,
 * an object whose values are `SQL\t----- bird -----\tdb_id`; and
 * `dev_databases/<db_id>/<db_id>.sqlite`. The evidence stays with the
 * question and the difficulty keeps BIRD's labels (simple, moderate,
 * challenging). A prediction's key is the question_id (dev.json numbers them
 * 0, 1, ... in order, which is also their position), or, when the keys are
 * not question_ids but positions (mini_dev), the question's position.
 */
import { hasErrors, type LoadProblem } from '../corpus/problems.ts';
import { BIRD_DIFFICULTIES, type Difficulty } from '../corpus/types.ts';
import { closest } from '../corpus/source.ts';
import {
  baseName,
  checkDatabases,
  elementAt,
  elementObject,
  hasCases,
  importFailed,
  isOtherDevJson,
  importSucceeded,
  indexId,
  ordersRows,
  predictionRecord,
  readJsonTop,
  type DatabaseFolder,
  type ImportedCase,
  type ImportedRecord,
  type ImportResult,
  type InputFile,
  type ProblemAt,
} from './common.ts';

export const BIRD_SEPARATOR = '\t----- bird -----\t';

export interface BirdImportInput {
  questions: InputFile;
  pred?: InputFile;
  databases?: DatabaseFolder;
  agent?: string;
  model?: string;
  corpusName?: string;
}

interface Question {
  key: string;
  db: string;
  line: number | undefined;
  index: number;
}

/** The questions file's cases, and for each the key its prediction is filed under. */
interface Questions {
  file: string;
  cases: ImportedCase[];
  questions: Question[];
}

const QUESTION_FIELDS = 'question_id, db_id, question, evidence, SQL, difficulty';

export function importBird(input: BirdImportInput): ImportResult {
  const problems: LoadProblem[] = [];
  const read = readQuestions(input.questions, problems);
  if (!read || hasErrors(problems)) return importFailed(problems);
  const { file, cases, questions } = read;
  if (!hasCases(cases.length, file, 'questions', problems)) return importFailed(problems);
  checkDatabases(
    questions.map((q, i) => ({ db: q.db, line: q.line, field: 'db_id', file, case_id: cases[i]!.id })),
    input.databases,
    problems,
  );
  let records: ImportedRecord[] = [];
  if (input.pred) {
    const predicted = readPredictions(input.pred, read, problems);
    if (!predicted) return importFailed(problems);
    records = predicted;
  }
  if (hasErrors(problems)) return importFailed(problems);
  return importSucceeded(
    'bird',
    problems,
    {
      corpusName: input.corpusName ?? baseName(file),
      description: `Imported from the BIRD layout: ${file}.`,
      cases,
      records,
      predFile: input.pred?.file ?? null,
    },
    input,
  );
}

/** dev.json's questions as cases, in file order; null when the file is not a JSON list. */
function readQuestions(input: InputFile, problems: LoadProblem[]): Questions | null {
  const file = input.file;
  const top = readJsonTop(input, 'list', `BIRD dev.json is a list of {${QUESTION_FIELDS}} objects.`, problems);
  if (!top) return null;
  const items = top.value;
  if (isOtherDevJson(items, top.lines, file, 'bird', problems)) return null;
  const cases: ImportedCase[] = [];
  const questions: Question[] = [];
  const seen = new Map<string, number | undefined>();
  for (const [i, item] of items.entries()) {
    const line = top.lines[i];
    const at = elementAt(file, line, i);
    const r = validQuestion(item, i, at, problems);
    if (!r) continue;
    const key = r.question_id === undefined ? String(i) : String(r.question_id);
    // Ids are compared as numbers: "007" and 7 both become case q0007 (that reached the corpus
    // loader as an internal error).
    const id = String(Number(key));
    if (seen.has(id)) {
      problems.push({
        severity: 'error',
        code: 'duplicate_id',
        ...at,
        field: 'question_id',
        message: `question_id ${key} is already used at line ${seen.get(id) ?? '?'}.`,
      });
      continue;
    }
    seen.set(id, line);
    cases.push(birdCase(r, indexId('q', Number(key), items.length)));
    questions.push({ key, db: r.db_id as string, line, index: i });
  }
  return { file, cases, questions };
}

/** The element as a question, or null with every problem it has recorded. */
function validQuestion(
  item: unknown,
  i: number,
  at: ProblemAt,
  problems: LoadProblem[],
): Record<string, unknown> | null {
  const r = elementObject(item, i, at, QUESTION_FIELDS, problems);
  if (!r) return null;
  // Every check runs, so one element reports all its problems at once.
  const checks = [
    hasRequiredStrings(r, i, at, problems),
    hasValidEvidence(r, i, at, problems),
    hasValidDifficulty(r, i, at, problems),
    hasValidQuestionId(r, i, at, problems),
  ];
  return checks.every(Boolean) ? r : null;
}

function hasRequiredStrings(r: Record<string, unknown>, i: number, at: ProblemAt, problems: LoadProblem[]): boolean {
  let ok = true;
  for (const field of ['db_id', 'question', 'SQL'] as const) {
    if (typeof r[field] !== 'string' || (r[field] as string).trim() === '') {
      const hint = r[field] === undefined ? closest(field, Object.keys(r)) : undefined;
      problems.push({
        severity: 'error',
        code: r[field] === undefined ? 'missing_field' : 'invalid_field',
        ...at,
        field,
        message: `Element ${i} needs a non-empty string '${field}'${hint ? ` (found '${hint}')` : ''}.`,
      });
      ok = false;
    }
  }
  return ok;
}

function hasValidEvidence(r: Record<string, unknown>, i: number, at: ProblemAt, problems: LoadProblem[]): boolean {
  if (r.evidence === undefined || r.evidence === null || typeof r.evidence === 'string') return true;
  problems.push({
    severity: 'error',
    code: 'invalid_field',
    ...at,
    field: 'evidence',
    message: `Element ${i}: 'evidence' must be a string.`,
  });
  return false;
}

function hasValidDifficulty(r: Record<string, unknown>, i: number, at: ProblemAt, problems: LoadProblem[]): boolean {
  const d = r.difficulty;
  if (d === undefined || d === null || (typeof d === 'string' && isBirdDifficulty(d))) return true;
  const hint = typeof d === 'string' ? closest(d, BIRD_DIFFICULTIES) : undefined;
  problems.push({
    severity: 'error',
    code: 'unknown_difficulty',
    ...at,
    field: 'difficulty',
    message: `Element ${i}: difficulty ${JSON.stringify(d)} is not one of BIRD's ${BIRD_DIFFICULTIES.join(', ')}${hint ? ` (did you mean '${hint}'?)` : ''}.`,
  });
  return false;
}

function isBirdDifficulty(d: string): d is Difficulty {
  return (BIRD_DIFFICULTIES as readonly string[]).includes(d);
}

/** A question_id, when given, is a whole number ≥ 0: a number, or a string of digits. */
function hasValidQuestionId(r: Record<string, unknown>, i: number, at: ProblemAt, problems: LoadProblem[]): boolean {
  const qid = r.question_id;
  if (
    qid === undefined ||
    (typeof qid === 'number' && Number.isSafeInteger(qid) && qid >= 0) ||
    (typeof qid === 'string' && /^\d+$/.test(qid))
  )
    return true;
  problems.push({
    severity: 'error',
    code: 'invalid_field',
    ...at,
    field: 'question_id',
    message: `Element ${i}: question_id must be a whole number ≥ 0.`,
  });
  return false;
}

/** A valid question as a case: the evidence stays with it, and BIRD's difficulty label is kept. */
function birdCase(r: Record<string, unknown>, id: string): ImportedCase {
  const evidence = typeof r.evidence === 'string' && r.evidence.trim() !== '' ? r.evidence : undefined;
  const difficulty = typeof r.difficulty === 'string' ? (r.difficulty as Difficulty) : undefined;
  return {
    id,
    fixture: r.db_id as string,
    question: r.question as string,
    ...(evidence ? { evidence } : {}),
    reference_sql: (r.SQL as string).trim(),
    shape: 'rows',
    order_matters: ordersRows(r.SQL as string),
    ...(difficulty ? { difficulty } : {}),
    tags: [r.db_id as string],
  };
}

/**
 * predict_*.json's records, in the cases' order; null when the file is not a
 * JSON object. Every key must name a question, and every question have a key.
 */
function readPredictions(input: InputFile, read: Questions, problems: LoadProblem[]): ImportedRecord[] | null {
  const top = readJsonTop(
    input,
    'object',
    'A BIRD predictions file is an object {"0": "SQL\\t----- bird -----\\tdb_id", ...}.',
    problems,
  );
  if (!top) return null;
  const { file: qfile, cases, questions } = read;
  const entries = Object.entries(top.value);
  // mini_dev numbers its questions with the dev set's ids (1471, 1472, ...) while BIRD's
  // gpt_request.py keys predictions by position (0, 1, ...) and its evaluation pairs them in
  // order: keys that are not all question_ids but are all positions are read as positions.
  const positional = keyedByPosition(
    entries.map(([key]) => key),
    questions,
  );
  if (positional)
    problems.push({
      severity: 'warning',
      code: 'keyed_by_position',
      file: input.file,
      line: 1,
      message: `The keys are positions 0–${questions.length - 1}, not ${qfile}'s question_ids (${questions[0]?.key ?? '?'}–${questions[questions.length - 1]?.key ?? '?'}): prediction "i" is graded against question i of ${qfile}, as BIRD's evaluation pairs them.`,
    });
  const byKey = new Map(questions.map((q, i) => [positional ? String(i) : q.key, { q, c: cases[i]! }]));
  const answered = new Set<string>();
  const records: ImportedRecord[] = [];
  entries.forEach(([key, value], i) => {
    const line = top.lines[i];
    const at = { file: input.file, ...(line !== undefined ? { line } : {}), field: key };
    const target = byKey.get(key);
    if (!target) {
      problems.push({
        severity: 'error',
        code: 'unknown_case',
        ...at,
        message: `Key "${key}" names no question of ${qfile} (question_ids ${questions[0]?.key ?? '?'}–${questions[questions.length - 1]?.key ?? '?'}).`,
      });
      return;
    }
    const sql = predictionSql(key, value, target, qfile, { ...at, case_id: target.c.id }, problems);
    if (sql === null) return;
    // The question answered (its question_id), whatever the key: positional keys are not question_ids.
    answered.add(target.q.key);
    records.push(predictionRecord(target.c.id, sql));
  });
  if (!hasErrors(problems) && answered.size !== questions.length)
    problems.push(missingPredictions(input.file, top.lines, entries.length, read, answered, positional));
  const order = new Map(cases.map((c, i) => [c.id, i]));
  return records.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
}

/** True when the keys are not all question_ids but are all positions (0 … n−1, canonical decimals). */
function keyedByPosition(keys: string[], questions: Question[]): boolean {
  const ids = new Set(questions.map((q) => q.key));
  if (keys.every((k) => ids.has(k))) return false;
  return keys.length > 0 && keys.every((k) => /^(0|[1-9]\d*)$/.test(k) && Number(k) < questions.length);
}

/** The SQL of a prediction `SQL\t----- bird -----\tdb_id` on its question's database, or null with the problem. */
function predictionSql(
  key: string,
  value: unknown,
  target: { q: Question },
  qfile: string,
  at: ProblemAt,
  problems: LoadProblem[],
): string | null {
  const problem = (code: 'invalid_field' | 'bad_separator', message: string) =>
    problems.push({ severity: 'error', code, ...at, message });
  if (typeof value !== 'string') {
    problem('invalid_field', `The prediction for "${key}" must be a string "SQL\\t----- bird -----\\tdb_id".`);
    return null;
  }
  const parts = value.split(BIRD_SEPARATOR);
  if (parts.length !== 2) {
    problem(
      'bad_separator',
      parts.length === 1
        ? `The prediction for "${key}" has no "\\t----- bird -----\\t" separator before its db_id (expected "SQL\\t----- bird -----\\t${target.q.db}").`
        : `The prediction for "${key}" has the separator ${parts.length - 1} times; expected once.`,
    );
    return null;
  }
  const [sql, db] = [parts[0]!, parts[1]!.trim()];
  if (db !== target.q.db) {
    problem(
      'invalid_field',
      `The prediction for "${key}" names db_id '${db}'; question ${target.q.key} (${qfile} line ${target.q.line ?? '?'}) is on '${target.q.db}'.`,
    );
    return null;
  }
  return sql;
}

/** The count_mismatch for questions without a prediction, at the file's last key, naming the first few. */
function missingPredictions(
  pfile: string,
  lines: number[],
  count: number,
  read: Questions,
  answered: Set<string>,
  positional: boolean,
): LoadProblem {
  const missing = read.questions.filter((q) => !answered.has(q.key));
  // Keyed by position, the key a missing prediction should have is its position (with its question_id).
  const keyOf = (q: Question) => (positional ? String(read.questions.indexOf(q)) : q.key);
  const named = missing
    .slice(0, 5)
    .map((q) => (positional ? `"${keyOf(q)}" (question_id ${q.key})` : `"${q.key}"`))
    .join(', ');
  return {
    severity: 'error',
    code: 'count_mismatch',
    file: pfile,
    line: lines.length ? lines[lines.length - 1]! : 1,
    field: keyOf(missing[0]!),
    message: `${pfile} has ${count} prediction(s); ${read.file} has ${read.questions.length} questions. No prediction for ${named}${missing.length > 5 ? `, and ${missing.length - 5} more` : ''}.`,
  };
}
