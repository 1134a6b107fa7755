import { describe, expect, it } from 'vitest';
import {
  formatProblem,
  loadCorpus,
  problemToVerdictError,
  type CorpusLoadResult,
  type LoadProblem,
} from '../../src/core/corpus/index.ts';

const FIXTURES = ['retail', 'retail_monthly'];
const enc = (text: string) => new TextEncoder().encode(text);
const load = (text: string | Uint8Array, extra: { maxBytes?: number; file?: string } = {}) =>
  loadCorpus(typeof text === 'string' ? enc(text) : text, {
    file: extra.file ?? 'corpus.yaml',
    knownFixtures: FIXTURES,
    maxBytes: extra.maxBytes,
  });

const GOOD = `corpus: tiny
version: 1
engine: duckdb
cases:
  - id: total-orders
    fixture: retail
    question: How many orders are there?
    reference_sql: SELECT count(*) AS n FROM orders
    shape: scalar
    order_matters: false
    difficulty: easy
    tags: [count]
    expected:
      columns: [{name: n, kind: integer, engine_type: BIGINT}]
      rows:
        - [1310]
  - id: orders-by-status
    fixture: retail
    question: How many orders are there per status?
    reference_sql: SELECT status, count(*) AS n FROM orders GROUP BY status
    shape: group_by
    order_matters: false
`;

function errors(result: CorpusLoadResult): LoadProblem[] {
  return result.problems.filter((p) => p.severity === 'error');
}

/** The one error of a malformed file. */
async function onlyError(
  text: string | Uint8Array,
  extra: { maxBytes?: number; file?: string } = {},
): Promise<LoadProblem> {
  const result = await load(text, extra);
  expect(result.ok).toBe(false);
  const found = errors(result);
  expect(found, found.map(formatProblem).join('\n')).toHaveLength(1);
  return found[0]!;
}

describe('loadCorpus: a well-formed corpus', () => {
  it('loads with its stamp and typed cases', async () => {
    const result = await load(GOOD);
    expect(result.problems).toEqual([]);
    if (!result.ok) throw new Error('not ok');
    const { corpus, sha256, sizeBytes } = result.loaded;
    expect(sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(sizeBytes).toBe(enc(GOOD).length);
    expect(corpus).toMatchObject({ name: 'tiny', version: 1, engine: 'duckdb' });
    expect(corpus.cases.map((c) => [c.id, c.line, c.shape, c.orderMatters])).toEqual([
      ['total-orders', 5, 'scalar', false],
      ['orders-by-status', 17, 'group_by', false],
    ]);
    expect(corpus.cases[0]!.expected).toEqual({
      columns: [{ name: 'n', kind: 'integer', engineType: 'BIGINT' }],
      rows: [[1310]],
    });
  });

  it('reads the same corpus written as JSON', async () => {
    const json = JSON.stringify(
      {
        corpus: 'tiny',
        version: 1,
        engine: 'sqlite',
        cases: [{ id: 'a', fixture: 'retail', question: 'q?', reference_sql: 'SELECT 1', shape: 'scalar' }],
      },
      null,
      2,
    );
    const result = await load(json, { file: 'tiny.json' });
    expect(result.ok).toBe(true);
  });
});

describe('loadCorpus: YAML aliases where the loader walks the tree', () => {
  // An alias as the cases list, or as a case, was "cases must be a list" / "A case must be a mapping".
  it('reads an aliased cases list, and names a case repeated by alias as a duplicate id', async () => {
    const [head, rest] = GOOD.split('cases:\n');
    const listed = await load(`lists:\n  all: &all\n${rest!.trimEnd().replace(/^/gm, '  ')}\n${head}cases: *all\n`);
    expect(errors(listed)).toEqual([]);
    if (!listed.ok) throw new Error('not ok');
    expect(listed.loaded.corpus.cases.map((c) => c.id)).toEqual(['total-orders', 'orders-by-status']);
    const repeated = await onlyError(
      `${GOOD.replace('  - id: orders-by-status', '  - &again\n    id: orders-by-status')}  - *again\n`,
    );
    expect(repeated).toMatchObject({ code: 'duplicate_id', case_id: 'orders-by-status', line: 24 });
  });

  it('a list nested thousands deep is named as such (it was "Maximum call stack size exceeded")', async () => {
    const deep = await load(GOOD.replace('tags: [count]', `tags: ${'['.repeat(5000)}${']'.repeat(5000)}`));
    expect(errors(deep).map((p) => [p.code, p.line, p.message])).toEqual([
      ['syntax_error', 12, expect.stringMatching(/^Lists or mappings nested too deeply to read/)],
    ]);
  });

  it('stays linear on an alias bomb: nine cases, each "not a mapping", no expansion', async () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i++) {
      const [prev, name] = [String.fromCharCode(96 + i), String.fromCharCode(97 + i)];
      levels.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(', ')}]`);
    }
    const result = await load(
      `bomb:\n${levels.map((l) => `  ${l}`).join('\n')}\ncorpus: b\nversion: 1\nengine: duckdb\ncases: *i\n`,
    );
    expect(errors(result).map((p) => p.message)).toEqual(Array(9).fill('A case must be a mapping.'));
  });
});

describe('loadCorpus: malformed files, each with a precise error', () => {
  it('1. non-UTF-8 bytes: the byte offset and line', async () => {
    const bytes = enc(GOOD.replace('How many orders are there?', 'How many orders are there XX'));
    const at = new TextDecoder().decode(bytes).indexOf('XX');
    bytes[at] = 0xff;
    const p = await onlyError(bytes);
    expect(p).toMatchObject({ code: 'not_utf8', line: 7 });
    expect(p.message).toContain(`byte ${at}`);
  });

  it('2. a file over the size limit', async () => {
    const p = await onlyError(GOOD, { maxBytes: 100 });
    expect(p.code).toBe('file_too_large');
    expect(p.message).toContain('limit is 100');
  });

  it('3. YAML syntax error, with its line', async () => {
    const p = await onlyError(GOOD.replace('    tags: [count]', '    tags: [count'));
    expect(p.code).toBe('syntax_error');
    expect(p.line).toBeGreaterThanOrEqual(13);
  });

  it('4. a key repeated inside one case', async () => {
    const p = await onlyError(GOOD.replace('    shape: group_by\n', '    shape: group_by\n    shape: rows\n'));
    expect(p.code).toBe('syntax_error');
    expect(p.message).toMatch(/unique/i);
    expect(p.line).toBe(22);
  });

  it('5. a duplicate case id names both places', async () => {
    const p = await onlyError(GOOD.replace('id: orders-by-status', 'id: total-orders'));
    expect(p).toMatchObject({ code: 'duplicate_id', case_id: 'total-orders', field: 'id', line: 17, case_index: 1 });
    expect(p.message).toContain('line 5');
  });

  it('6. an unknown fixture, with a suggestion', async () => {
    const p = await onlyError(
      GOOD.replace(
        'fixture: retail\n    question: How many orders are there per',
        'fixture: retial\n    question: How many orders are there per',
      ),
    );
    expect(p).toMatchObject({ code: 'unknown_fixture', case_id: 'orders-by-status', field: 'fixture', line: 18 });
    expect(p.message).toContain("did you mean 'retail'");
  });

  it('7. an unknown shape', async () => {
    const p = await onlyError(GOOD.replace('shape: group_by', 'shape: grouped'));
    expect(p).toMatchObject({ code: 'unknown_shape', case_id: 'orders-by-status', field: 'shape', line: 21 });
  });

  it('8. a missing reference', async () => {
    const p = await onlyError(
      GOOD.replace('    reference_sql: SELECT status, count(*) AS n FROM orders GROUP BY status\n', ''),
    );
    expect(p).toMatchObject({
      code: 'missing_reference',
      case_id: 'orders-by-status',
      field: 'reference_sql',
      line: 17,
    });
  });

  it('9. an empty reference', async () => {
    const p = await onlyError(
      GOOD.replace('reference_sql: SELECT status, count(*) AS n FROM orders GROUP BY status', "reference_sql: '  '"),
    );
    expect(p).toMatchObject({ code: 'missing_reference', case_id: 'orders-by-status', line: 20 });
  });

  it('10. a bad expected cell: the path names row and column', async () => {
    const p = await onlyError(GOOD.replace('- [1310]', '- ["many"]'));
    expect(p).toMatchObject({ code: 'bad_expected', case_id: 'total-orders', field: 'expected.rows[0][0]', line: 16 });
    expect(p.message).toContain('integer');
  });

  it('11. an expected row of the wrong width', async () => {
    const p = await onlyError(GOOD.replace('- [1310]', '- [1310, 2]'));
    expect(p).toMatchObject({ code: 'bad_expected', field: 'expected.rows[0]', line: 16 });
    expect(p.message).toContain('has 2 cells, the columns say 1');
  });

  it('12. a scalar case whose expected result has two columns', async () => {
    const p = await onlyError(
      GOOD.replace(
        'columns: [{name: n, kind: integer, engine_type: BIGINT}]',
        'columns: [{name: n, kind: integer}, {name: m, kind: integer}]',
      ).replace('- [1310]', '- [1310, 1]'),
    );
    expect(p).toMatchObject({ code: 'shape_contradiction', case_id: 'total-orders', field: 'expected', line: 14 });
  });

  it('13. a top_n case that does not declare order_matters', async () => {
    const p = await onlyError(
      GOOD.replace('shape: group_by\n    order_matters: false', 'shape: top_n\n    order_matters: false'),
    );
    expect(p).toMatchObject({ code: 'shape_contradiction', field: 'order_matters', line: 22 });
  });

  it('14. strata counts that contradict the declared counts', async () => {
    const battery = `corpus: battery
version: 1
engine: duckdb
strata:
  must_refuse: {out_of_schema: 2}
  must_answer: {control_scalar: 1}
cases:
  - id: r1
    fixture: retail
    question: What was our marketing spend?
    arm: must_refuse
    stratum: out_of_schema
  - id: a1
    fixture: retail
    question: How many orders?
    arm: must_answer
    stratum: control_scalar
    reference_sql: SELECT count(*) FROM orders
    shape: scalar
`;
    expect((await load(battery.replace('out_of_schema: 2', 'out_of_schema: 1'))).problems).toEqual([]);
    const p = await onlyError(battery);
    expect(p).toMatchObject({ code: 'count_mismatch', field: 'strata.must_refuse.out_of_schema', line: 5 });
    expect(p.message).toBe('strata.must_refuse.out_of_schema declares 2 case(s); the file has 1.');
    const moved = await load(
      battery.replace('out_of_schema: 2', 'out_of_schema: 1').replace('stratum: out_of_schema', 'stratum: injection'),
    );
    expect(errors(moved).map((e) => e.message)).toEqual([
      'strata.must_refuse.out_of_schema declares 1 case(s); the file has 0.',
      'strata.must_refuse declares no count for injection, but 1 case(s) are in it.',
    ]);
  });

  it('15. a stratum that does not belong to its arm', async () => {
    const p = await onlyError(`corpus: b
version: 1
engine: duckdb
cases:
  - id: r1
    fixture: retail
    question: Delete all orders.
    arm: must_refuse
    stratum: control_scalar
`);
    expect(p).toMatchObject({ code: 'unknown_stratum', case_id: 'r1', field: 'stratum', line: 9 });
  });

  it('16. a must_refuse case that carries a reference SQL', async () => {
    const p = await onlyError(`corpus: b
version: 1
engine: duckdb
cases:
  - id: r1
    fixture: retail
    question: What was our marketing spend?
    arm: must_refuse
    stratum: out_of_schema
    reference_sql: SELECT 0
`);
    expect(p).toMatchObject({ code: 'unexpected_reference', case_id: 'r1', field: 'reference_sql', line: 10 });
  });

  it('17. a declared case_count that is wrong', async () => {
    const p = await onlyError(GOOD.replace('engine: duckdb\n', 'engine: duckdb\ncase_count: 3\n'));
    expect(p).toMatchObject({ code: 'count_mismatch', field: 'case_count', line: 4 });
    expect(p.message).toBe('case_count declares 3 cases; the file has 2.');
  });

  it('18. an unsupported engine', async () => {
    const p = await onlyError(GOOD.replace('engine: duckdb', 'engine: oracle'));
    expect(p).toMatchObject({ code: 'invalid_field', field: 'engine', line: 3 });
  });

  it('19. a case without an id is still named by its position', async () => {
    const p = await onlyError(GOOD.replace('  - id: orders-by-status\n    fixture', '  - fixture'));
    expect(p).toMatchObject({ code: 'missing_field', field: 'id', case_index: 1, line: 17 });
    expect(formatProblem(p)).toBe("corpus.yaml:17:5: error [missing_field] case #2 field 'id': The case has no id.");
  });

  it('20. JSON with a syntax error', async () => {
    const result = await load('{"corpus": "x", "version": 1,\n "cases": [\n  {"id": "a" "fixture": "retail"}\n]}', {
      file: 'x.json',
    });
    expect(result.ok).toBe(false);
    expect(result.problems.every((p) => p.code === 'syntax_error')).toBe(true);
    expect(formatProblem(result.problems[0]!)).toBe(
      "x.json:3:14: error [syntax_error]: Not valid JSON: Expected ',' or '}' after property value.",
    );
  });

  it('21. a document that is a list, not a corpus', async () => {
    const p = await onlyError('- id: a\n  question: q\n');
    expect(p).toMatchObject({ code: 'not_a_mapping', line: 1 });
  });

  it('22. an id with spaces', async () => {
    const p = await onlyError(GOOD.replace('id: orders-by-status', 'id: orders by status'));
    expect(p).toMatchObject({ code: 'invalid_field', field: 'id', case_index: 1 });
  });

  it('23. a version that is not a positive integer', async () => {
    const p = await onlyError(GOOD.replace('version: 1', 'version: "3a"'));
    expect(p).toMatchObject({ code: 'invalid_field', field: 'version', line: 2 });
  });

  it('reports every bad case, never only the first', async () => {
    const result = await load(
      GOOD.replace('shape: group_by', 'shape: grouped').replace(
        'fixture: retail\n    question: How many orders are there?',
        'fixture: nowhere\n    question: How many orders are there?',
      ),
    );
    expect(errors(result).map((p) => [p.code, p.case_id])).toEqual([
      ['unknown_fixture', 'total-orders'],
      ['unknown_shape', 'orders-by-status'],
    ]);
  });

  it('warns about an unknown field and suggests the intended one', async () => {
    const result = await load(
      GOOD.replace('    order_matters: false\n    difficulty', '    order_maters: false\n    difficulty'),
    );
    expect(result.ok).toBe(true);
    expect(result.problems).toEqual([
      expect.objectContaining({
        severity: 'warning',
        code: 'unknown_field',
        field: 'order_maters',
        case_id: 'total-orders',
        line: 10,
      }),
    ]);
    expect(result.problems[0]!.message).toContain("did you mean 'order_matters'");
  });

  it('turns a problem into a catalogue error with its location', async () => {
    const p = await onlyError(GOOD.replace('shape: group_by', 'shape: grouped'));
    expect(problemToVerdictError(p)).toEqual({
      code: 'input.invalid',
      message: expect.stringContaining('[unknown_shape]'),
      location: 'corpus.yaml:21, case orders-by-status, field shape',
    });
  });
});

describe('a malformed JSON corpus', () => {
  it('is reported in JSON terms with its line and column, not as YAML', async () => {
    const text = '{\n  "corpus": "x",\n  "version": 1,\n  "engine": "duckdb"\n  "cases": []\n}\n';
    const result = await loadCorpus(new TextEncoder().encode(text), { file: 'bad.json' });
    expect(result.ok).toBe(false);
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatchObject({ code: 'syntax_error', file: 'bad.json', line: 5, column: 3 });
    expect(result.problems[0]!.message).toMatch(/^Not valid JSON: /);
    expect(result.problems[0]!.message).not.toMatch(/YAML|flow|implicit/i);
  });
});
