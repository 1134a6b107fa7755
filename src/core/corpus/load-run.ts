/**
 * Load and validate a run file (SPEC 1.3): what the system under test
 * answered, one record per case id, plus run metadata. JSON
 * (`{"run": {...}, "records": [...]}` or a bare array of records) or JSONL
 * (an optional first line `{"run": {...}}`, then one record per line).
 */
import { isMap, isSeq, type Node, type YAMLMap } from 'yaml';
import { sha256Hex } from '../digest/sha256.ts';
import { hasErrors, type LoadProblem, type ProblemCode } from './problems.ts';
import { duplicateTopLevelKey } from './json-tree.ts';
import { closest, jsonSyntaxError, keysOf, looksLikeJson, pairOf, Source } from './source.ts';
import { decodeUtf8Strict } from './utf8.ts';

/** Unknown case ids that get a "did you mean" hint (each looks through every case id). */
const UNKNOWN_CASE_HINTS = 20;

export const DEFAULT_RUN_MAX_BYTES = 64 * 1024 * 1024;

export interface RunMetadata {
  /** Name of the system under test. */
  agent?: string;
  /** Model identifier; a run without one cannot be scored against a baseline. */
  model?: string;
  /** Generation path, e.g. governed or fallback. */
  path?: string;
  /** ISO 8601 instant the run was produced. */
  createdAt?: string;
  /** Name of the corpus the run answers. */
  corpus?: string;
  /** SHA-256 of the corpus bytes the run answered, when the producer recorded it. */
  corpusSha256?: string;
  notes?: string;
}

export interface RunRecord {
  id: string;
  /** null: no query produced (unless declined). */
  sql: string | null;
  declined: boolean;
  declineReason?: string;
  enrichedQuestion?: string;
  path?: string;
  model?: string;
  /** 1-based line of the record in its file. */
  line?: number;
}

export interface LoadedRun {
  file: string;
  sha256: string;
  sizeBytes: number;
  format: 'json' | 'jsonl';
  metadata: RunMetadata;
  records: RunRecord[];
  /** Corpus case ids with no record (graded as no query produced); empty when no ids were given. */
  missingIds: string[];
}

export interface LoadRunOptions {
  file: string;
  /** The corpus's case ids: records for other ids are errors, absent ids are listed in `missingIds`. */
  caseIds?: readonly string[];
  maxBytes?: number;
  /** The file's format when its name does not tell (an imported run is JSONL whatever it was called). */
  format?: 'json' | 'jsonl';
}

export type RunLoadResult =
  | { ok: true; run: LoadedRun; problems: LoadProblem[] }
  | { ok: false; problems: LoadProblem[]; sha256: string; sizeBytes: number };

const META_FIELDS = ['agent', 'model', 'path', 'created_at', 'corpus', 'corpus_sha256', 'notes'] as const;
const RECORD_FIELDS = ['id', 'sql', 'declined', 'decline_reason', 'enriched_question', 'path', 'model'] as const;
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

interface Item {
  value: unknown;
  line?: number;
  /** Position of a field's value, when known. */
  fieldLine?: (field: string) => number | undefined;
}

export async function loadRun(bytes: Uint8Array, options: LoadRunOptions): Promise<RunLoadResult> {
  const file = options.file;
  const sha256 = await sha256Hex(bytes);
  const sizeBytes = bytes.length;
  const problems: LoadProblem[] = [];
  const failed = (): RunLoadResult => ({ ok: false, problems, sha256, sizeBytes });
  const push = (
    code: ProblemCode,
    message: string,
    extra: Partial<LoadProblem> = {},
    severity: 'error' | 'warning' = 'error',
  ) => problems.push({ severity, code, file, ...extra, message });

  const maxBytes = options.maxBytes ?? DEFAULT_RUN_MAX_BYTES;
  if (sizeBytes > maxBytes) {
    push('file_too_large', `The file has ${sizeBytes} bytes; the limit is ${maxBytes}.`);
    return failed();
  }
  const decoded = decodeUtf8Strict(bytes);
  if (!decoded.ok) {
    push('not_utf8', `Not UTF-8 at byte ${decoded.offset}: ${decoded.reason}.`, {
      line: decoded.line,
      column: decoded.column,
    });
    return failed();
  }
  const text = decoded.text;
  // An empty file is a failed export, not a run with no answers: grading it would overwrite --out with all no_query.
  if (text.trim() === '') {
    push(
      'empty_file',
      `The run file is empty (${sizeBytes} bytes); expected {"run": {...}, "records": [...]}, a list of records, or JSONL.`,
    );
    return failed();
  }
  const lower = file.toLowerCase();
  const jsonl = options.format
    ? options.format === 'jsonl'
    : lower.endsWith('.jsonl') || lower.endsWith('.ndjson') || (!lower.endsWith('.json') && looksLikeJsonl(text));

  let meta: Item | undefined;
  const items: Item[] = [];
  if (jsonl) {
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!.trim();
      if (line === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (error) {
        push(
          'syntax_error',
          `Line ${i + 1} is not a JSON value: ${error instanceof Error ? error.message : String(error)}.`,
          { line: i + 1 },
        );
        continue;
      }
      // JSON.parse keeps the last of a repeated key silently (the .json form names it: the YAML parser's check).
      const twice = typeof value === 'object' && value !== null ? duplicateTopLevelKey(line) : null;
      if (twice !== null) {
        push('syntax_error', `Line ${i + 1} gives the key "${twice}" twice; a record gives each field once.`, {
          line: i + 1,
          field: twice,
        });
        continue;
      }
      const isHeader =
        typeof value === 'object' &&
        value !== null &&
        !Array.isArray(value) &&
        Object.keys(value).length === 1 &&
        'run' in value;
      if (isHeader) {
        if (meta || items.length > 0)
          push('run_metadata', 'The run metadata line must come first, once.', { line: i + 1 });
        else meta = { value: (value as { run: unknown }).run, line: i + 1 };
      } else items.push({ value, line: i + 1 });
    }
    if (hasErrors(problems)) return failed();
  } else {
    // JSON in JSON's terms, as a corpus is: the YAML parser accepted a trailing comma and worded a cut-off file's
    // error as YAML's (JSON with a duplicate key still goes to it, the one parser that names the key).
    const json = looksLikeJson(file, text);
    const jsonError = json ? jsonSyntaxError(text) : null;
    if (jsonError) {
      push('syntax_error', `Not valid JSON: ${jsonError.message}.`, { line: jsonError.line, column: jsonError.column });
      return failed();
    }
    const source = new Source(text, { json });
    const syntax = source.errors();
    if (syntax.length > 0) {
      for (const e of syntax) push('syntax_error', e.message, { line: e.line, column: e.column });
      return failed();
    }
    const root = source.doc.contents;
    const fromSeq = (seq: Node) => {
      if (!isSeq(seq)) return;
      for (const item of seq.items as Node[]) {
        const map = isMap(item) ? (item as YAMLMap) : undefined;
        items.push({
          value: source.toJS(item),
          line: source.position(item)?.line,
          fieldLine: (field) => (map ? source.position(pairOf(map, field)?.value)?.line : undefined),
        });
      }
    };
    if (isSeq(root)) fromSeq(root);
    else if (isMap(root)) {
      for (const { key, node } of keysOf(root))
        if (key !== 'run' && key !== 'records')
          push(
            'unknown_field',
            `Unknown top-level field '${key}'; a run file has run and records.`,
            { line: source.position(node)?.line, field: key },
            'warning',
          );
      const runNode = pairOf(root, 'run')?.value;
      if (runNode) meta = { value: source.toJS(runNode), line: source.position(runNode)?.line };
      const records = pairOf(root, 'records')?.value;
      if (!records || !isSeq(records)) {
        push('missing_field', 'A run file needs a records list.', {
          line: source.position(root)?.line,
          field: 'records',
        });
        return failed();
      }
      fromSeq(records);
    } else {
      push('not_a_mapping', 'A run file is {"run": {...}, "records": [...]}, a list of records, or JSONL.', {
        line: source.position(root)?.line,
      });
      return failed();
    }
  }

  const metadata = readMetadata(meta, push);
  const records: RunRecord[] = [];
  const seen = new Map<string, number | undefined>();
  items.forEach((item, index) => {
    const record = readRecord(item, index, metadata, push);
    if (!record) return;
    if (seen.has(record.id)) {
      push(
        'duplicate_record',
        `Case '${record.id}' already has a record (line ${seen.get(record.id) ?? '?'}); a run answers each case once.`,
        { line: item.line, case_id: record.id, case_index: index, field: 'id' },
      );
      return;
    }
    seen.set(record.id, item.line);
    records.push(record);
  });

  let missingIds: string[] = [];
  if (options.caseIds) {
    const known = new Set(options.caseIds);
    let hinted = 0;
    for (const r of records) {
      if (!known.has(r.id)) {
        // A typo gets a hint; a run of another corpus (thousands of unknown ids) does not wait for thousands.
        const hint = hinted++ < UNKNOWN_CASE_HINTS ? closest(r.id, options.caseIds) : undefined;
        push('unknown_case', `The corpus has no case '${r.id}'${hint ? ` (did you mean '${hint}'?)` : ''}.`, {
          line: r.line,
          case_id: r.id,
          field: 'id',
        });
      }
    }
    missingIds = options.caseIds.filter((id) => !seen.has(id));
  }

  if (hasErrors(problems)) return failed();
  return {
    ok: true,
    run: { file, sha256, sizeBytes, format: jsonl ? 'jsonl' : 'json', metadata, records, missingIds },
    problems,
  };
}

function looksLikeJsonl(text: string): boolean {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  return lines.length > 1 && lines.every((l) => l.trim().startsWith('{') && l.trim().endsWith('}'));
}

type Push = (code: ProblemCode, message: string, extra?: Partial<LoadProblem>, severity?: 'error' | 'warning') => void;

function readMetadata(meta: Item | undefined, push: Push): RunMetadata {
  const out: RunMetadata = {};
  if (!meta) {
    push(
      'run_metadata',
      'The run has no metadata (agent, model, path, created_at); it can be graded but not compared with a baseline.',
      {},
      'warning',
    );
    return out;
  }
  const value = meta.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    push('run_metadata', 'run must be an object {agent, model, path, created_at}.', { line: meta.line, field: 'run' });
    return out;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!(META_FIELDS as readonly string[]).includes(key)) {
      const hint = closest(key, META_FIELDS);
      push(
        'unknown_field',
        `Unknown run field '${key}'${hint ? ` (did you mean '${hint}'?)` : ''}; it is ignored.`,
        { line: meta.line, field: `run.${key}` },
        'warning',
      );
    }
  }
  const names: [keyof typeof record, keyof RunMetadata][] = [
    ['agent', 'agent'],
    ['model', 'model'],
    ['path', 'path'],
    ['created_at', 'createdAt'],
    ['corpus', 'corpus'],
    ['corpus_sha256', 'corpusSha256'],
    ['notes', 'notes'],
  ];
  for (const [from, to] of names) {
    const v = record[from];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string' || v.trim() === '')
      push('invalid_field', `run.${String(from)} must be a non-empty string.`, {
        line: meta.line,
        field: `run.${String(from)}`,
      });
    else out[to] = v;
  }
  for (const required of ['agent', 'model', 'path', 'created_at'] as const) {
    if (record[required] === undefined || record[required] === null)
      push(
        'run_metadata',
        required === 'model'
          ? 'run.model is missing: a run without a model identity cannot be scored against a baseline.'
          : `run.${required} is missing.`,
        { line: meta.line, field: `run.${required}` },
        'warning',
      );
  }
  if (out.createdAt !== undefined && !ISO_INSTANT.test(out.createdAt))
    push(
      'invalid_field',
      `run.created_at ${JSON.stringify(out.createdAt)} is not an ISO 8601 instant such as 2025-07-01T12:00:00Z.`,
      { line: meta.line, field: 'run.created_at' },
      'warning',
    );
  if (out.corpusSha256 !== undefined && !/^[0-9a-f]{64}$/.test(out.corpusSha256))
    push('invalid_field', 'run.corpus_sha256 must be 64 lowercase hex digits.', {
      line: meta.line,
      field: 'run.corpus_sha256',
    });
  return out;
}

function readRecord(item: Item, index: number, metadata: RunMetadata, push: Push): RunRecord | undefined {
  const value = item.value;
  const at = (field?: string): Partial<LoadProblem> => ({
    line: (field && item.fieldLine?.(field)) || item.line,
    case_index: index,
    ...(field ? { field } : {}),
  });
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    push('invalid_field', 'A record must be an object {id, sql, declined, ...}.', at());
    return undefined;
  }
  const r = value as Record<string, unknown>;
  if (typeof r.id !== 'string' || r.id.trim() === '') {
    push(
      r.id === undefined ? 'missing_field' : 'invalid_field',
      'A record needs a string id naming its case.',
      at('id'),
    );
    return undefined;
  }
  const id = r.id;
  const where = (field?: string) => ({ ...at(field), case_id: id });
  for (const key of Object.keys(r)) {
    if (!(RECORD_FIELDS as readonly string[]).includes(key)) {
      const hint = closest(key, RECORD_FIELDS);
      push(
        'unknown_field',
        `Unknown record field '${key}'${hint ? ` (did you mean '${hint}'?)` : ''}; it is ignored.`,
        where(key),
        'warning',
      );
    }
  }
  let ok = true;
  if (r.sql !== undefined && r.sql !== null && typeof r.sql !== 'string') {
    push('invalid_field', 'sql must be a string or null.', where('sql'));
    ok = false;
  }
  if (r.declined !== undefined && typeof r.declined !== 'boolean') {
    push('invalid_field', 'declined must be true or false.', where('declined'));
    ok = false;
  }
  const optional: Partial<Record<'declineReason' | 'enrichedQuestion' | 'path' | 'model', string>> = {};
  for (const [from, to] of [
    ['decline_reason', 'declineReason'],
    ['enriched_question', 'enrichedQuestion'],
    ['path', 'path'],
    ['model', 'model'],
  ] as const) {
    const v = r[from];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string') {
      push('invalid_field', `${from} must be a string.`, where(from));
      ok = false;
    } else optional[to] = v;
  }
  if (!ok) return undefined;
  // {id} alone says nothing about the answer; "no query" must be said (sql: null), not implied.
  if (!('sql' in r) && !('declined' in r)) {
    push(
      'missing_field',
      'The record has only an id: give sql (the query, or null for no query) or declined: true.',
      where('sql'),
    );
    return undefined;
  }
  const declined = r.declined === true;
  let sql = typeof r.sql === 'string' ? r.sql : null;
  if (sql !== null && sql.trim() === '') {
    push('inconsistent_record', 'sql is empty: graded as no query produced.', where('sql'), 'warning');
    sql = null;
  }
  if (declined && sql !== null)
    push(
      'inconsistent_record',
      'The record is declined but carries SQL: it is graded as a refusal and the SQL is not run.',
      where('sql'),
      'warning',
    );
  if (!declined && optional.declineReason !== undefined)
    push('inconsistent_record', 'decline_reason is set but declined is not true.', where('decline_reason'), 'warning');
  if (optional.model !== undefined && metadata.model !== undefined && optional.model !== metadata.model)
    push(
      'inconsistent_record',
      `The record's model '${optional.model}' differs from the run's '${metadata.model}'.`,
      where('model'),
      'warning',
    );
  if (optional.path !== undefined && metadata.path !== undefined && optional.path !== metadata.path)
    push(
      'inconsistent_record',
      `The record's path '${optional.path}' differs from the run's '${metadata.path}'.`,
      where('path'),
      'warning',
    );
  const out: RunRecord = { id, sql, declined, ...optional };
  if (item.line !== undefined) out.line = item.line;
  return out;
}
