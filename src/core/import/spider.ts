/**
 * Spider as its users have it: a gold file of `SQL<TAB>db_id` lines (or
 * dev.json's `query`/`db_id`), a predictions file of one SQL per line in the
 * same order, and `database/<db_id>/<db_id>.sqlite`. Blank lines separate
 * interactions (the test-suite's evaluation_examples layout, SParC/CoSQL
 * style): both files must have the same interactions with the same number of
 * turns. Lines are read as the official evaluator reads them: stripped, and a
 * prediction ends at its first tab.
 */
import type { LoadProblem } from '../corpus/problems.ts';
import {
  baseName,
  importedBenchmark,
  checkDatabases,
  readJsonTop,
  textOf,
  type DatabaseFolder,
  type ImportedCase,
  type ImportedRecord,
  type ImportResult,
  type InputFile,
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
  const fail = (): ImportResult => ({ ok: false, problems });
  if (!input.gold && !input.questions) {
    problems.push({
      severity: 'error',
      code: 'missing_field',
      file: '(command line)',
      field: 'gold',
      message: 'Spider needs a gold file (SQL<TAB>db_id per line) or dev.json.',
    });
    return fail();
  }

  // dev.json: questions, and the gold when no gold file is given.
  let questions: Gold[] | null = null;
  if (input.questions) {
    const file = input.questions.file;
    const top = readJsonTop(
      input.questions,
      'list',
      'Spider dev.json is a list of {db_id, query, question} objects.',
      problems,
    );
    if (!top) return fail();
    const lines = top.lines;
    questions = [];
    for (const [i, item] of top.value.entries()) {
      const line = lines[i];
      const at = { file, ...(line !== undefined ? { line } : {}), case_index: i };
      if (typeof item !== 'object' || item === null || Array.isArray(item)) {
        problems.push({
          severity: 'error',
          code: 'invalid_field',
          ...at,
          message: `Element ${i} must be an object {db_id, query, question}.`,
        });
        continue;
      }
      const r = item as Record<string, unknown>;
      let bad = false;
      for (const field of ['db_id', 'query', 'question'] as const) {
        if (typeof r[field] !== 'string' || (r[field] as string).trim() === '') {
          problems.push({
            severity: 'error',
            code: r[field] === undefined ? 'missing_field' : 'invalid_field',
            ...at,
            field,
            message: `Element ${i} needs a non-empty string '${field}'.`,
          });
          bad = true;
        }
      }
      if (!bad)
        questions.push({
          sql: (r.query as string).trim(),
          db: r.db_id as string,
          line: line ?? 0,
          file,
          question: r.question as string,
        });
    }
    if (problems.some((p) => p.severity === 'error')) return fail();
  }

  // The gold file, in interactions.
  let gold: Gold[][];
  if (input.gold) {
    const file = input.gold.file;
    const text = textOf(input.gold, problems);
    if (text === null) return fail();
    gold = splitSessions(text).map((session) =>
      session.flatMap((l) => {
        const fields = l.text.split('\t');
        if (fields.length !== 2 || fields[0]!.trim() === '' || fields[1]!.trim() === '') {
          problems.push({
            severity: 'error',
            code: 'invalid_field',
            file,
            line: l.line,
            field:
              fields.length < 2 ? 'db_id' : fields.length > 2 ? 'db_id' : fields[0]!.trim() === '' ? 'sql' : 'db_id',
            message: `A gold line is SQL<TAB>db_id; this one has ${fields.length} tab-separated field(s).`,
          });
          return [];
        }
        return [{ sql: fields[0]!.trim(), db: fields[1]!.trim(), line: l.line, file }];
      }),
    );
    if (problems.some((p) => p.severity === 'error')) return fail();
    const flat = gold.flat();
    if (questions) {
      if (questions.length !== flat.length) {
        problems.push({
          severity: 'error',
          code: 'count_mismatch',
          file: input.questions!.file,
          field: 'questions',
          message: `${input.questions!.file} has ${questions.length} questions; the gold file ${file} has ${flat.length} lines: they are matched by position.`,
        });
        return fail();
      }
      flat.forEach((g, i) => {
        const q = questions![i]!;
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
      if (problems.some((p) => p.severity === 'error')) return fail();
    }
  } else gold = [questions!];

  const multi = gold.length > 1;
  const total = gold.reduce((n, s) => n + s.length, 0);
  const width = Math.max(4, String(total - 1).length);
  const idOf = (s: number, t: number, index: number) =>
    multi
      ? `i${String(s).padStart(Math.max(3, String(gold.length - 1).length), '0')}-t${String(t).padStart(2, '0')}`
      : `q${String(index).padStart(width, '0')}`;

  checkDatabases(
    gold.flat().map((g) => ({ db: g.db, line: g.line || undefined, field: 'db_id', file: g.file })),
    input.databases,
    problems,
  );

  const cases: ImportedCase[] = [];
  const ids: string[][] = [];
  let index = 0;
  gold.forEach((session, s) => {
    ids.push([]);
    session.forEach((g, t) => {
      const id = idOf(s, t, index++);
      ids[s]!.push(id);
      cases.push({
        id,
        fixture: g.db,
        question: g.question ?? `(no question given: ${g.file} line ${g.line})`,
        reference_sql: g.sql,
        shape: 'rows',
        // SQL Verdict's own reading; the spider preset applies the official one (`order by` in the gold).
        order_matters: /\border\s+by\b/i.test(g.sql),
        tags: [g.db],
      });
    });
  });

  let records: ImportedRecord[] = [];
  if (input.pred) {
    const file = input.pred.file;
    const text = textOf(input.pred, problems);
    if (text === null) return fail();
    const pred = splitSessions(text);
    const goldFile = input.gold?.file ?? input.questions!.file;
    if (pred.length !== gold.length) {
      const predLines = pred.flat().length;
      const firstExtra = pred[gold.length]?.[0]?.line;
      problems.push({
        severity: 'error',
        code: 'count_mismatch',
        file,
        ...(firstExtra !== undefined ? { line: firstExtra } : { line: text.split(/\r\n|\r|\n/).length }),
        field: 'prediction',
        message:
          multi || pred.length > 1
            ? `${file} has ${pred.length} interaction(s) (blank-line separated) and ${predLines} prediction(s); ${goldFile} has ${gold.length} interaction(s) and ${total} line(s).`
            : `${file} has ${predLines} prediction(s); ${goldFile} has ${total}: predictions are matched to the gold by line.`,
      });
      return fail();
    }
    pred.forEach((session, s) => {
      const want = gold[s]!.length;
      if (session.length !== want) {
        const line = session.length > want ? session[want]!.line : (session[session.length - 1]?.line ?? 0) + 1;
        problems.push({
          severity: 'error',
          code: 'count_mismatch',
          file,
          line,
          field: 'prediction',
          message: multi
            ? `Interaction ${s} has ${session.length} prediction(s); the gold's has ${want} (gold lines ${gold[s]![0]!.line}–${gold[s]![want - 1]!.line}).`
            : `${file} has ${session.length} prediction(s); ${goldFile} has ${want}: predictions are matched to the gold by line.`,
        });
      }
    });
    if (problems.some((p) => p.severity === 'error')) return fail();
    records = pred.flatMap((session, s) => session.map((l, t) => ({ id: ids[s]![t]!, sql: l.text.split('\t')[0]! })));
  }
  if (problems.some((p) => p.severity === 'error')) return fail();

  const source = input.gold?.file ?? input.questions!.file;
  return {
    ok: true,
    problems,
    imported: importedBenchmark('spider', {
      corpusName: input.corpusName ?? baseName(source),
      description: `Imported from the Spider layout: ${[input.gold?.file, input.questions?.file].filter(Boolean).join(' + ')}.`,
      cases,
      records,
      predFile: input.pred?.file ?? null,
      ...(input.agent !== undefined ? { agent: input.agent } : {}),
      ...(input.model !== undefined ? { model: input.model } : {}),
    }),
  };
}
