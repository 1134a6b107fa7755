/**
 * BIRD as its users have it: dev.json (or mini_dev_*.json), a list of
 * {question_id, db_id, question, evidence, SQL, difficulty}; predict_*.json,
 * an object whose values are `SQL\t----- bird -----\tdb_id`; and
 * `dev_databases/<db_id>/<db_id>.sqlite`. The evidence stays with the
 * question and the difficulty keeps BIRD's labels (simple, moderate,
 * challenging). A prediction's key is the question_id (BIRD's files number
 * them 0, 1, ... in order, which is also their position).
 */
import type { LoadProblem } from '../corpus/problems.ts';
import { BIRD_DIFFICULTIES, type Difficulty } from '../corpus/types.ts';
import { closest } from '../corpus/source.ts';
import {
  baseName,
  importedBenchmark,
  checkDatabases,
  indexId,
  readJsonTop,
  type DatabaseFolder,
  type ImportedCase,
  type ImportedRecord,
  type ImportResult,
  type InputFile,
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

export function importBird(input: BirdImportInput): ImportResult {
  const problems: LoadProblem[] = [];
  const fail = (): ImportResult => ({ ok: false, problems });
  const errors = () => problems.some((p) => p.severity === 'error');
  const file = input.questions.file;
  const top = readJsonTop(
    input.questions,
    'list',
    'BIRD dev.json is a list of {question_id, db_id, question, evidence, SQL, difficulty} objects.',
    problems,
  );
  if (!top) return fail();
  const items = top.value;
  const lines = top.lines;
  const cases: ImportedCase[] = [];
  const questions: Question[] = [];
  const seen = new Map<string, number | undefined>();
  for (const [i, item] of items.entries()) {
    const line = lines[i];
    const at = { file, ...(line !== undefined ? { line } : {}), case_index: i };
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      problems.push({
        severity: 'error',
        code: 'invalid_field',
        ...at,
        message: `Element ${i} must be an object {question_id, db_id, question, evidence, SQL, difficulty}.`,
      });
      continue;
    }
    const r = item as Record<string, unknown>;
    let bad = false;
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
        bad = true;
      }
    }
    if (r.evidence !== undefined && r.evidence !== null && typeof r.evidence !== 'string') {
      problems.push({
        severity: 'error',
        code: 'invalid_field',
        ...at,
        field: 'evidence',
        message: `Element ${i}: 'evidence' must be a string.`,
      });
      bad = true;
    }
    let difficulty: Difficulty | undefined;
    if (r.difficulty !== undefined && r.difficulty !== null) {
      if (typeof r.difficulty !== 'string' || !(BIRD_DIFFICULTIES as readonly string[]).includes(r.difficulty)) {
        const hint = typeof r.difficulty === 'string' ? closest(r.difficulty, BIRD_DIFFICULTIES) : undefined;
        problems.push({
          severity: 'error',
          code: 'unknown_difficulty',
          ...at,
          field: 'difficulty',
          message: `Element ${i}: difficulty ${JSON.stringify(r.difficulty)} is not one of BIRD's ${BIRD_DIFFICULTIES.join(', ')}${hint ? ` (did you mean '${hint}'?)` : ''}.`,
        });
        bad = true;
      } else difficulty = r.difficulty as Difficulty;
    }
    const qid = r.question_id;
    if (
      qid !== undefined &&
      !(typeof qid === 'number' && Number.isSafeInteger(qid) && qid >= 0) &&
      !(typeof qid === 'string' && /^\d+$/.test(qid))
    ) {
      problems.push({
        severity: 'error',
        code: 'invalid_field',
        ...at,
        field: 'question_id',
        message: `Element ${i}: question_id must be a whole number ≥ 0.`,
      });
      bad = true;
    }
    if (bad) continue;
    const key = qid === undefined ? String(i) : String(qid);
    if (seen.has(key)) {
      problems.push({
        severity: 'error',
        code: 'duplicate_id',
        ...at,
        field: 'question_id',
        message: `question_id ${key} is already used at line ${seen.get(key) ?? '?'}.`,
      });
      continue;
    }
    seen.set(key, line);
    const id = indexId('q', Number(key), items.length);
    const evidence = typeof r.evidence === 'string' && r.evidence.trim() !== '' ? r.evidence : undefined;
    cases.push({
      id,
      fixture: r.db_id as string,
      question: r.question as string,
      ...(evidence ? { evidence } : {}),
      reference_sql: (r.SQL as string).trim(),
      shape: 'rows',
      order_matters: /\border\s+by\b/i.test(r.SQL as string),
      ...(difficulty ? { difficulty } : {}),
      tags: [r.db_id as string],
    });
    questions.push({ key, db: r.db_id as string, line, index: i });
  }
  if (errors()) return fail();
  checkDatabases(
    questions.map((q, i) => ({ db: q.db, line: q.line, field: 'db_id', file, case_id: cases[i]!.id })),
    input.databases,
    problems,
  );

  let records: ImportedRecord[] = [];
  if (input.pred) {
    const pfile = input.pred.file;
    const ptop = readJsonTop(
      input.pred,
      'object',
      'A BIRD predictions file is an object {"0": "SQL\\t----- bird -----\\tdb_id", ...}.',
      problems,
    );
    if (!ptop) return fail();
    const entries = Object.entries(ptop.value);
    const plines = ptop.lines;
    const byKey = new Map(questions.map((q, i) => [q.key, { q, c: cases[i]! }]));
    const answered = new Set<string>();
    entries.forEach(([key, value], i) => {
      const line = plines[i];
      const at = { file: pfile, ...(line !== undefined ? { line } : {}), field: key };
      const target = byKey.get(key);
      if (!target) {
        problems.push({
          severity: 'error',
          code: 'unknown_case',
          ...at,
          message: `Key "${key}" names no question of ${file} (question_ids ${questions[0]?.key ?? '?'}–${questions[questions.length - 1]?.key ?? '?'}).`,
        });
        return;
      }
      if (typeof value !== 'string') {
        problems.push({
          severity: 'error',
          code: 'invalid_field',
          ...at,
          case_id: target.c.id,
          message: `The prediction for "${key}" must be a string "SQL\\t----- bird -----\\tdb_id".`,
        });
        return;
      }
      const parts = value.split(BIRD_SEPARATOR);
      if (parts.length !== 2) {
        problems.push({
          severity: 'error',
          code: 'bad_separator',
          ...at,
          case_id: target.c.id,
          message:
            parts.length === 1
              ? `The prediction for "${key}" has no "\\t----- bird -----\\t" separator before its db_id (expected "SQL\\t----- bird -----\\t${target.q.db}").`
              : `The prediction for "${key}" has the separator ${parts.length - 1} times; expected once.`,
        });
        return;
      }
      const [sql, db] = [parts[0]!, parts[1]!.trim()];
      if (db !== target.q.db) {
        problems.push({
          severity: 'error',
          code: 'invalid_field',
          ...at,
          case_id: target.c.id,
          message: `The prediction for "${key}" names db_id '${db}'; question ${key} (${file} line ${target.q.line ?? '?'}) is on '${target.q.db}'.`,
        });
        return;
      }
      answered.add(key);
      records.push({ id: target.c.id, sql: sql.trim() === '' ? null : sql });
    });
    if (!errors() && answered.size !== questions.length) {
      const missing = questions.filter((q) => !answered.has(q.key));
      problems.push({
        severity: 'error',
        code: 'count_mismatch',
        file: pfile,
        line: plines.length ? plines[plines.length - 1]! : 1,
        field: missing[0]!.key,
        message: `${pfile} has ${entries.length} prediction(s); ${file} has ${questions.length} questions. No prediction for ${missing
          .slice(0, 5)
          .map((q) => `"${q.key}"`)
          .join(', ')}${missing.length > 5 ? `, and ${missing.length - 5} more` : ''}.`,
      });
    }
    const order = new Map(cases.map((c, i) => [c.id, i]));
    records = records.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  }
  if (errors()) return fail();
  return {
    ok: true,
    problems,
    imported: importedBenchmark('bird', {
      corpusName: input.corpusName ?? baseName(file),
      description: `Imported from the BIRD layout: ${file}.`,
      cases,
      records,
      predFile: input.pred?.file ?? null,
      ...(input.agent !== undefined ? { agent: input.agent } : {}),
      ...(input.model !== undefined ? { model: input.model } : {}),
    }),
  };
}
