/**
 * Spider as its users have it: a gold file of `SQL<TAB>db_id` lines (or
 * dev.json's `query`/`db_id`), a predictions file of one SQL per line in the
 * same order, and `database/<db_id>/<db_id>.sqlite`. Blank lines separate
 * interactions (the test-suite's evaluation_examples layout, SParC/CoSQL
 * style): both files must have the same interactions with the same number of
 * turns. Lines are read as the official evaluator reads them: stripped, and a
 * prediction ends at its first tab.
 */
import { hasErrors, type LoadProblem } from '../corpus/problems.ts';
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
  readJsonTop,
  textOf,
  type DatabaseFolder,
  type ImportedCase,
  type ImportedRecord,
  type ImportResult,
  type InputFile,
  type ProblemAt,
} from './common.ts';

export interface SpiderImportInput {
  /** `SQL<TAB>db_id` per line. */
  gold?: InputFile;
  /** dev.json: questions (and, without a gold file, the gold queries). */
  questions?: InputFile;
  /** One SQL per line, aligned with the gold. */
  pred?: InputFile;
  databases?: DatabaseFolder;
  /** Name of the system (default: the predictions file's name). */
  agent?: string;
  model?: string;
  corpusName?: string;
}

interface Line {
  text: string;
  line: number;
}

/** Lines as Python's readlines() + strip() give them, grouped into interactions at blank lines. */
function splitSessions(text: string): Line[][] {
  const lines = text.split(/\r\n|\r|\n/);
  const out: Line[][] = [];
  let current: Line[] = [];
  lines.forEach((raw, i) => {
    const stripped = raw.trim();
    if (stripped === '') {
      // The official reader closes an interaction at every blank line (the final newline makes none).
      if (i === lines.length - 1) return;
      out.push(current);
      current = [];
      return;
    }
    current.push({ text: stripped, line: i + 1 });
  });
  if (current.length) out.push(current);
  // Blank lines at the end make empty interactions that the official evaluator's zip() of the two
  // files drops; kept, a file ending in "\n\n\n" no longer matched the other's interaction count.
  while (out.length > 1 && out[out.length - 1]!.length === 0) out.pop();
  return out;
}

interface Gold {
  sql: string;
  db: string;
  line: number;
  file: string;
  question?: string;
}

export function importSpider(input: SpiderImportInput): ImportResult {
  const problems: LoadProblem[] = [];
  const gold = readGoldAndQuestions(input, problems);
  if (!gold) return importFailed(problems);
  const goldFile = input.gold?.file ?? input.questions!.file;
  if (!hasCases(gold.flat().length, goldFile, input.gold ? 'gold lines (SQL<TAB>db_id)' : 'questions', problems))
    return importFailed(problems);
  checkDatabases(
    gold.flat().map((g) => ({ db: g.db, line: g.line || undefined, field: 'db_id', file: g.file })),
    input.databases,
    problems,
  );
  const ids = caseIds(gold);
  const cases = gold.flatMap((session, s) => session.map((g, t) => spiderCase(g, ids[s]![t]!)));
  let records: ImportedRecord[] = [];
  if (input.pred) {
    const predicted = readPredictions(input.pred, gold, ids, goldFile, problems);
    if (!predicted) return importFailed(problems);
    records = predicted;
  }
  if (hasErrors(problems)) return importFailed(problems);
  return importSucceeded(
    'spider',
    problems,
    {
      corpusName: input.corpusName ?? baseName(goldFile),
      description: `Imported from the Spider layout: ${[input.gold?.file, input.questions?.file].filter(Boolean).join(' + ')}.`,
      cases,
      records,
      predFile: input.pred?.file ?? null,
    },
    input,
  );
}

/**
 * The gold in interactions: the gold file's, with dev.json's questions
 * matched by position when both are given, or dev.json's as one interaction.
 * Null when neither is given or either file has an error.
 */
function readGoldAndQuestions(input: SpiderImportInput, problems: LoadProblem[]): Gold[][] | null {
  if (!input.gold && !input.questions) {
    problems.push({
      severity: 'error',
      code: 'missing_field',
      file: '(command line)',
      field: 'gold',
      message: 'Spider needs a gold file (SQL<TAB>db_id per line) or dev.json.',
    });
    return null;
  }
  const questions = input.questions ? readQuestions(input.questions, problems) : null;
  if (input.questions && !questions) return null;
  if (!input.gold) return [questions!];
  const gold = readGold(input.gold, problems);
  if (!gold) return null;
  if (questions && !matchQuestions(gold.flat(), questions, input.questions!.file, input.gold.file, problems))
    return null;
  return gold;
}

/** dev.json's entries as gold with their questions; null when the file or an entry has an error. */
function readQuestions(input: InputFile, problems: LoadProblem[]): Gold[] | null {
  const file = input.file;
  const top = readJsonTop(input, 'list', 'Spider dev.json is a list of {db_id, query, question} objects.', problems);
  if (!top) return null;
  if (isOtherDevJson(top.value, top.lines, file, 'spider', problems)) return null;
  const questions: Gold[] = [];
  for (const [i, item] of top.value.entries()) {
    const line = top.lines[i];
    const at = elementAt(file, line, i);
    const r = elementObject(item, i, at, 'db_id, query, question', problems);
    if (!r || !hasRequiredStrings(r, i, at, problems)) continue;
    questions.push({
      sql: (r.query as string).trim(),
      db: r.db_id as string,
      line: line ?? 0,
      file,
      question: r.question as string,
    });
  }
  return hasErrors(problems) ? null : questions;
}

function hasRequiredStrings(r: Record<string, unknown>, i: number, at: ProblemAt, problems: LoadProblem[]): boolean {
  let ok = true;
  for (const field of ['db_id', 'query', 'question'] as const) {
    if (typeof r[field] !== 'string' || (r[field] as string).trim() === '') {
      problems.push({
        severity: 'error',
        code: r[field] === undefined ? 'missing_field' : 'invalid_field',
        ...at,
        field,
        message: `Element ${i} needs a non-empty string '${field}'.`,
      });
      ok = false;
    }
  }
  return ok;
}

/** The gold file's `SQL<TAB>db_id` lines in interactions; null when it is not UTF-8 or a line is malformed. */
function readGold(input: InputFile, problems: LoadProblem[]): Gold[][] | null {
  const text = textOf(input, problems);
  if (text === null) return null;
  const gold = splitSessions(text).map((session) => session.flatMap((l) => goldLine(l, input.file, problems)));
  return hasErrors(problems) ? null : gold;
}

function goldLine(l: Line, file: string, problems: LoadProblem[]): Gold[] {
  const fields = l.text.split('\t');
  if (fields.length === 2 && fields[0]!.trim() !== '' && fields[1]!.trim() !== '')
    return [{ sql: fields[0]!.trim(), db: fields[1]!.trim(), line: l.line, file }];
  problems.push({
    severity: 'error',
    code: 'invalid_field',
    file,
    line: l.line,
    field: fields.length === 2 && fields[0]!.trim() === '' ? 'sql' : 'db_id',
    message: `A gold line is SQL<TAB>db_id; this one has ${fields.length} tab-separated field(s).`,
  });
  return [];
}

/**
 * dev.json's questions given to the gold lines, by position: both files must
 * have as many entries, on the same databases. False when they disagree.
 */
function matchQuestions(
  gold: Gold[],
  questions: Gold[],
  qfile: string,
  file: string,
  problems: LoadProblem[],
): boolean {
  if (questions.length !== gold.length) {
    problems.push({
      severity: 'error',
      code: 'count_mismatch',
      file: qfile,
      field: 'questions',
      message: `${qfile} has ${questions.length} questions; the gold file ${file} has ${gold.length} lines: they are matched by position.`,
    });
    return false;
  }
  gold.forEach((g, i) => {
    const q = questions[i]!;
    if (q.db !== g.db)
      problems.push({
        severity: 'error',
        code: 'invalid_field',
        file,
        line: g.line,
        field: 'db_id',
        case_index: i,
        message: `The gold line names db_id '${g.db}'; question ${i} of ${q.file} (line ${q.line}) names '${q.db}'.`,
      });
    else g.question = q.question;
  });
  return !hasErrors(problems);
}

/** Case ids per interaction: `q0000` in a file of one, `i000-t00` (interaction, turn) in the test-suite layout. */
function caseIds(gold: Gold[][]): string[][] {
  if (gold.length > 1) {
    const width = Math.max(3, String(gold.length - 1).length);
    return gold.map((session, s) =>
      session.map((_, t) => `i${String(s).padStart(width, '0')}-t${String(t).padStart(2, '0')}`),
    );
  }
  const total = gold.reduce((n, s) => n + s.length, 0);
  let index = 0;
  return gold.map((session) => session.map(() => indexId('q', index++, total)));
}

function spiderCase(g: Gold, id: string): ImportedCase {
  return {
    id,
    fixture: g.db,
    question: g.question ?? `(no question given: ${g.file} line ${g.line})`,
    reference_sql: g.sql,
    shape: 'rows',
    // SQL Verdict's own reading; the spider preset applies the official one (`order by` in the gold).
    order_matters: ordersRows(g.sql),
    tags: [g.db],
  };
}

/**
 * The predictions file's records, one per gold line: it must have the gold's
 * interactions, each with as many lines. Null when it does not.
 */
function readPredictions(
  input: InputFile,
  gold: Gold[][],
  ids: string[][],
  goldFile: string,
  problems: LoadProblem[],
): ImportedRecord[] | null {
  const text = textOf(input, problems);
  if (text === null) return null;
  const pred = splitSessions(text);
  if (pred.length !== gold.length) {
    problems.push(interactionCountMismatch(input.file, text, pred, gold, goldFile));
    return null;
  }
  const mismatches = pred.flatMap((session, s) => turnCountMismatch(input.file, session, s, gold, goldFile));
  if (mismatches.length) {
    problems.push(...mismatches);
    return null;
  }
  // As the official evaluator reads a prediction: up to its first tab.
  return pred.flatMap((session, s) => session.map((l, t) => ({ id: ids[s]![t]!, sql: l.text.split('\t')[0]! })));
}

function interactionCountMismatch(
  file: string,
  text: string,
  pred: Line[][],
  gold: Gold[][],
  goldFile: string,
): LoadProblem {
  const total = gold.reduce((n, s) => n + s.length, 0);
  const predLines = pred.flat().length;
  const firstExtra = pred[gold.length]?.[0]?.line;
  return {
    severity: 'error',
    code: 'count_mismatch',
    file,
    ...(firstExtra !== undefined ? { line: firstExtra } : { line: text.split(/\r\n|\r|\n/).length }),
    field: 'prediction',
    message:
      gold.length > 1 || pred.length > 1
        ? `${file} has ${pred.length} interaction(s) (blank-line separated) and ${predLines} prediction(s); ${goldFile} has ${gold.length} interaction(s) and ${total} line(s).`
        : `${file} has ${predLines} prediction(s); ${goldFile} has ${total}: predictions are matched to the gold by line.`,
  };
}

/** The interaction's problem when it has more or fewer predictions than the gold's, at the first line off. */
function turnCountMismatch(file: string, session: Line[], s: number, gold: Gold[][], goldFile: string): LoadProblem[] {
  const want = gold[s]!.length;
  if (session.length === want) return [];
  const line = session.length > want ? session[want]!.line : (session[session.length - 1]?.line ?? 0) + 1;
  return [
    {
      severity: 'error',
      code: 'count_mismatch',
      file,
      line,
      field: 'prediction',
      message:
        gold.length > 1
          ? `Interaction ${s} has ${session.length} prediction(s); the gold's has ${want} (gold lines ${gold[s]![0]!.line}–${gold[s]![want - 1]!.line}).`
          : `${file} has ${session.length} prediction(s); ${goldFile} has ${want}: predictions are matched to the gold by line.`,
    },
  ];
}
