import { describe, expect, it } from 'vitest';
import { formatProblem, loadRun, type RunLoadResult } from '../../src/core/corpus/index.ts';

const enc = (text: string) => new TextEncoder().encode(text);
const IDS = ['a', 'b', 'c'];
const META = { agent: 'demo-agent', model: 'model-x-2025-06', path: 'governed', created_at: '2025-07-01T12:00:00Z' };

const load = (text: string, file = 'run.json', caseIds: string[] | undefined = IDS) =>
  loadRun(enc(text), { file, caseIds });
const errorsOf = (r: RunLoadResult) => r.problems.filter((p) => p.severity === 'error');

describe('loadRun', () => {
  it('reads a JSON run with metadata and lists the cases it does not answer', async () => {
    const text = JSON.stringify(
      {
        run: META,
        records: [
          { id: 'a', sql: 'SELECT 1', declined: false },
          { id: 'b', sql: null, declined: true, decline_reason: 'out of schema' },
        ],
      },
      null,
      2,
    );
    const result = await load(text);
    expect(result.problems).toEqual([]);
    if (!result.ok) throw new Error('not ok');
    expect(result.run.format).toBe('json');
    expect(result.run.metadata).toEqual({
      agent: 'demo-agent',
      model: 'model-x-2025-06',
      path: 'governed',
      createdAt: '2025-07-01T12:00:00Z',
    });
    expect(result.run.records).toEqual([
      { id: 'a', sql: 'SELECT 1', declined: false, line: 9 },
      { id: 'b', sql: null, declined: true, declineReason: 'out of schema', line: 14 },
    ]);
    expect(result.run.missingIds).toEqual(['c']);
    expect(result.run.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('reads JSONL with a metadata header line', async () => {
    const text =
      [
        JSON.stringify({ run: META }),
        JSON.stringify({ id: 'a', sql: 'SELECT 1', declined: false }),
        '',
        JSON.stringify({ id: 'c', sql: null, declined: false }),
      ].join('\n') + '\n';
    const result = await load(text, 'run.jsonl');
    if (!result.ok) throw new Error(result.problems.map(formatProblem).join('\n'));
    expect(result.run.format).toBe('jsonl');
    expect(result.run.records.map((r) => [r.id, r.line])).toEqual([
      ['a', 2],
      ['c', 4],
    ]);
    expect(result.run.missingIds).toEqual(['b']);
  });

  it('treats a missing sql key as no query when the record says it did not decline, and warns on an empty one', async () => {
    const result = await load(
      JSON.stringify({
        run: META,
        records: [
          { id: 'a', declined: false },
          { id: 'b', sql: '  ', declined: false },
        ],
      }),
    );
    if (!result.ok) throw new Error('not ok');
    expect(result.run.records.map((r) => r.sql)).toEqual([null, null]);
    expect(result.problems.map((p) => [p.code, p.case_id])).toEqual([['inconsistent_record', 'b']]);
  });

  it('refuses a record with only an id, and an empty file', async () => {
    const idOnly = await load(JSON.stringify({ run: META, records: [{ id: 'a' }] }));
    expect(errorsOf(idOnly).map(formatProblem)).toEqual([
      "run.json:1: error [missing_field] case 'a' field 'sql': The record has only an id: give sql (the query, or null for no query) or declined: true.",
    ]);
    const empty = await load('  \n');
    expect(errorsOf(empty).map((p) => p.code)).toEqual(['empty_file']);
  });

  it('rejects a duplicate record, naming both lines', async () => {
    const text = [
      JSON.stringify({ run: META }),
      '{"id": "a", "sql": "SELECT 1"}',
      '{"id": "a", "sql": "SELECT 2"}',
    ].join('\n');
    const result = await load(text, 'run.jsonl');
    expect(errorsOf(result).map(formatProblem)).toEqual([
      "run.jsonl:3: error [duplicate_record] case 'a' field 'id': Case 'a' already has a record (line 2); a run answers each case once.",
    ]);
  });

  it('rejects a record for a case the corpus does not have', async () => {
    const result = await load(JSON.stringify({ run: META, records: [{ id: 'aa', sql: 'SELECT 1' }] }));
    expect(errorsOf(result)).toEqual([expect.objectContaining({ code: 'unknown_case', case_id: 'aa', line: 1 })]);
    expect(errorsOf(result)[0]!.message).toContain("did you mean 'a'");
  });

  it('names every unknown case of a run made for another corpus, with a hint for the first 20 only', async () => {
    // Thousands of unknown ids against thousands of case ids used to take minutes of edit distances.
    const caseIds = Array.from({ length: 2000 }, (_, i) => `spider_dev.system.${String(i).padStart(4, '0')}`);
    const records = Array.from({ length: 3000 }, (_, i) => ({ id: `spider_pair.row${i}`, sql: 'SELECT 1' }));
    const result = await loadRun(enc(JSON.stringify({ run: META, records })), { file: 'run.json', caseIds });
    const unknown = errorsOf(result).filter((p) => p.code === 'unknown_case');
    expect(unknown).toHaveLength(3000);
    expect(unknown.filter((p) => p.message.includes('did you mean')).length).toBeLessThanOrEqual(20);
    expect(unknown[2999]!.message).toBe("The corpus has no case 'spider_pair.row2999'.");
    // A typo still gets its hint.
    const typo = await loadRun(
      enc(JSON.stringify({ run: META, records: [{ id: 'spider_dev.system.O001', sql: 'SELECT 1' }] })),
      {
        file: 'run.json',
        caseIds,
      },
    );
    expect(errorsOf(typo)[0]!.message).toContain("did you mean 'spider_dev.system.0001'");
  });

  it('rejects ill-typed fields with their line', async () => {
    const text = JSON.stringify(
      { run: META, records: [{ id: 'a', sql: 42 }, { id: 'b', declined: 'yes' }, { sql: 'SELECT 1' }] },
      null,
      2,
    );
    const result = await load(text);
    expect(errorsOf(result).map((p) => [p.code, p.case_id ?? p.case_index, p.field, p.line])).toEqual([
      ['invalid_field', 'a', 'sql', 11],
      ['invalid_field', 'b', 'declined', 15],
      ['missing_field', 2, 'id', 17],
    ]);
  });

  it('reports a JSONL line that is not JSON', async () => {
    const result = await load('{"id": "a", "sql": "SELECT 1"}\n{"id": "b", sql: 1}\n', 'run.jsonl');
    expect(errorsOf(result)).toEqual([expect.objectContaining({ code: 'syntax_error', line: 2 })]);
  });

  it('rejects a JSONL record that gives a key twice, as the JSON form does (it graded the last sql silently)', async () => {
    const result = await load(
      '{"id": "a", "sql": "SELECT 1"}\n{"id": "b", "sql": "SELECT 1", "sql": "SELECT 2"}\n',
      'run.jsonl',
    );
    expect(errorsOf(result)).toEqual([
      expect.objectContaining({ code: 'syntax_error', line: 2, message: expect.stringMatching(/key .*sql.* twice/) }),
    ]);
  });

  it('reads a .json run as JSON: a trailing comma or a cut-off file is a JSON error with its line, not YAML', async () => {
    // The YAML parser read both: the trailing comma was accepted, the cut file told about in YAML's words.
    const comma = await load('{"run": {},\n "records": [{"id": "a", "sql": "SELECT 1"},\n]}');
    expect(errorsOf(comma)).toEqual([
      expect.objectContaining({ code: 'syntax_error', line: 3, message: expect.stringMatching(/^Not valid JSON: /) }),
    ]);
    const cut = await load('{"run": {},\n "records": [{"id": "a", "sql": "SELECT 1"}');
    expect(errorsOf(cut)).toEqual([
      expect.objectContaining({ code: 'syntax_error', line: 2, message: expect.stringMatching(/^Not valid JSON: /) }),
    ]);
    // A duplicate key is still named (JSON.parse keeps the last one silently).
    const twice = await load('[{"id": "a", "sql": "SELECT 1", "sql": "SELECT 2"}]');
    expect(errorsOf(twice)).toEqual([expect.objectContaining({ code: 'syntax_error', line: 1 })]);
  });

  it('warns when metadata is missing, above all the model identity', async () => {
    const bare = await load(JSON.stringify([{ id: 'a', sql: 'SELECT 1' }]));
    expect(bare.ok).toBe(true);
    expect(bare.problems.map((p) => p.code)).toEqual(['run_metadata']);
    const noModel = await load(
      JSON.stringify({ run: { agent: 'x', path: 'governed', created_at: '2025-07-01T12:00:00Z' }, records: [] }),
    );
    expect(noModel.problems.map((p) => p.message)).toEqual([
      'run.model is missing: a run without a model identity cannot be scored against a baseline.',
    ]);
  });

  it('warns about contradictions: declined with SQL, a record on another model', async () => {
    const result = await load(
      JSON.stringify({
        run: META,
        records: [
          { id: 'a', sql: 'SELECT 1', declined: true },
          { id: 'b', sql: 'SELECT 2', model: 'other' },
        ],
      }),
    );
    expect(result.ok).toBe(true);
    expect(result.problems.map((p) => [p.code, p.case_id, p.field])).toEqual([
      ['inconsistent_record', 'a', 'sql'],
      ['inconsistent_record', 'b', 'model'],
    ]);
  });

  it('rejects non-UTF-8 bytes and oversized files', async () => {
    const bytes = enc('{"run": {}, "records": []}');
    bytes[3] = 0xc3;
    const bad = await loadRun(bytes, { file: 'r.json' });
    expect(bad.problems.map((p) => p.code)).toEqual(['not_utf8']);
    const big = await loadRun(enc('[]'), { file: 'r.json', maxBytes: 1 });
    expect(big.problems.map((p) => p.code)).toEqual(['file_too_large']);
  });
});
