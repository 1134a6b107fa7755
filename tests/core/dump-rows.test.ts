/**
 * A SQL dump's plain INSERTs read as staged rows (src/core/sql/dump-rows.ts): what is read, what is left
 * to the engine as written, and which literals a column of each type may take from staged text. The
 * engine-side proof that the staged load gives the same tables is tests/engines/bulk-load.test.ts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lexStatements } from '../../src/core/sandbox/statements.ts';
import { readDump, stageRows, type DumpStatement } from '../../src/core/sql/dump-rows.ts';

type Rows = Extract<DumpStatement, { kind: 'rows' }>;

function rowsOf(sql: string): Rows {
  const statements = readDump(sql);
  const rows = statements?.find((s): s is Rows => s.kind === 'rows');
  if (!rows) throw new Error(`no rows read from: ${sql}`);
  return rows;
}

describe('readDump', () => {
  it('reads DDL as written and INSERT rows as CSV of quoted fields', () => {
    const statements = readDump(
      `-- a comment; with a semicolon\nCREATE TABLE "a;b" (x INTEGER, y VARCHAR);\n` +
        `INSERT INTO "a;b" VALUES (1, 'it''s'), (-2 , NULL),\n  (003, 'say "hi", ok' -- note\n);\n` +
        `insert into t values ('line\nbreak', 4.50)`,
    );
    expect(statements).toEqual([
      { kind: 'sql', text: 'CREATE TABLE "a;b" (x INTEGER, y VARCHAR)' },
      {
        kind: 'rows',
        table: '"a;b"',
        text: `INSERT INTO "a;b" VALUES (1, 'it''s'), (-2 , NULL),\n  (003, 'say "hi", ok' -- note\n)`,
        csv: '1,"it\'s"\n-2,\n003,"say ""hi"", ok"\n',
        rowCount: 3,
        columns: [
          { kind: 'number', integral: 1, fraction: 0, minusZero: false, nul: false, nulls: false },
          { kind: 'string', integral: 0, fraction: 0, minusZero: false, nul: false, nulls: true },
        ],
      },
      expect.objectContaining({ kind: 'rows', table: 't', csv: '"line\nbreak",4.50\n' }),
    ]);
  });

  it('leaves to the engine a statement that is not an INSERT of literals', () => {
    for (const sql of [
      'INSERT INTO t VALUES (1e3)',
      'INSERT INTO t VALUES (1.)',
      'INSERT INTO t VALUES (TRUE)',
      "INSERT INTO t VALUES (1, DATE '2024-01-01')",
      'INSERT INTO t VALUES (1 + 1)',
      'INSERT INTO t (a) VALUES (1)',
      'INSERT INTO s.t VALUES (1)',
      'INSERT INTO t VALUES (1), (1, 2)',
      "INSERT INTO t VALUES ('42'), (42)", // the SQL gives the column a common type first
      'INSERT INTO t SELECT 1',
      'INSERT INTO t VALUES (NULLIF(1, 2))',
    ])
      expect(readDump(`${sql};`), sql).toEqual([{ kind: 'sql', text: sql }]);
  });

  it('is not a plain dump when the lexing could differ from the engine, or a statement is not DDL or DML', () => {
    for (const sql of [
      'CREATE TABLE t (a INTEGER); /* a; b */ INSERT INTO t VALUES (1);',
      "INSERT INTO t VALUES (E'a\\'b');",
      'CREATE FUNCTION f() AS $$ SELECT 1; $$;',
      "INSERT INTO t VALUES ('unterminated);",
      'BEGIN TRANSACTION; INSERT INTO t VALUES (1); COMMIT;',
      'SET threads = 1; INSERT INTO t VALUES (1);',
      'INSERT INTO `t` VALUES (1);',
    ])
      expect(readDump(sql), sql).toBeNull();
  });

  // Its own one-pass scanner (the sandbox's lexStatements costs as much again: 35-40 ms of a fresh engine's
  // first load); where it reads a dump, it must split it where the sandbox's lexer does.
  it('splits a dump it reads where the sandbox lexer does', () => {
    const dumps = [
      ...['retail', 'retail_monthly'].map((n) =>
        readFileSync(new URL(`../../fixtures/${n}.sql`, import.meta.url), 'utf8'),
      ),
      `-- head; comment\nCREATE TABLE "x;y" (a VARCHAR, "b--c" INTEGER);\r\n` +
        `INSERT INTO "x;y" VALUES ('a;b', 1), ('--not a comment', 2), ('it''s; ok', -3); -- tail ; comment\n` +
        `insert into "x;y" values ('"; --', NULL)`,
    ];
    const withoutLeadingComments = (t: string) => t.replace(/^(?:\s*--[^\n]*\n)*\s*/, '');
    for (const dump of dumps) {
      const read = readDump(dump);
      expect(read).not.toBeNull();
      expect(read!.map((s) => s.text)).toEqual(
        lexStatements(dump)
          .filter((s) => !s.empty)
          .map((s) => withoutLeadingComments(s.text)),
      );
    }
  });

  it('reads the built-in fixtures whole', () => {
    for (const name of ['retail', 'retail_monthly']) {
      const statements = readDump(readFileSync(new URL(`../../fixtures/${name}.sql`, import.meta.url), 'utf8'));
      const rows = statements?.filter((s): s is Rows => s.kind === 'rows') ?? [];
      expect(statements?.filter((s) => s.kind === 'sql').map((s) => s.text.split('(')[0])).toEqual([
        'CREATE TABLE customers ',
        'CREATE TABLE products ',
        'CREATE TABLE orders ',
        'CREATE TABLE order_items ',
      ]);
      expect(rows.reduce((n, s) => n + s.rowCount, 0)).toBeGreaterThan(3000);
    }
  });
});

describe('stageRows', () => {
  const staged = (values: string, type: string) => stageRows(rowsOf(`INSERT INTO t VALUES ${values}`), [type]);

  it('stages strings for every scalar column type, and NULLs', () => {
    for (const type of ['VARCHAR', 'DATE', 'TIMESTAMP', 'BOOLEAN', 'INTEGER', 'DECIMAL(10,2)', 'DOUBLE', 'UUID'])
      expect(staged(`('x'), ('y')`, type), type).toBe('"x"\n"y"\n');
    expect(stageRows(rowsOf(`INSERT INTO t VALUES (1, NULL), (NULL, 'b')`), ['INTEGER', 'VARCHAR'])).toBe('1,\n,"b"\n');
  });

  it('stages a number only where its text casts to the value the SQL literal would be', () => {
    expect(staged('(1), (-20), (007)', 'INTEGER')).toBe('1\n-20\n007\n');
    expect(staged('(1.5)', 'INTEGER')).toBeNull(); // the SQL rounds a DECIMAL literal
    expect(staged('(12.5), (3), (-0.25)', 'DECIMAL(10,2)')).toBe('12.5\n3\n-0.25\n');
    expect(staged('(1.005)', 'DECIMAL(10,2)')).toBeNull(); // rounding on both sides: not proven the same
    expect(staged('(123456789)', 'DECIMAL(10,2)')).toBeNull(); // wider than the column: both fail, let it say so
    expect(staged('(0.1), (123456789012345)', 'DOUBLE')).toBeNull(); // a common DECIMAL(16,1): 16 digits
    expect(staged('(0.1), (12345678901234)', 'DOUBLE')).toBe('0.1\n12345678901234\n');
    expect(staged('(42)', 'VARCHAR')).toBeNull(); // an INTEGER cast to text would drop leading zeros and signs
    expect(staged('(42)', 'REAL')).toBeNull();
    expect(staged('(-0.0)', 'DOUBLE')).toBeNull(); // the SQL makes +0, the text -0
    expect(staged('(-0)', 'INTEGER')).toBeNull();
  });

  it('refuses column types it does not know, a NUL, a one-column NULL and a column count that differs', () => {
    expect(staged(`('[1]')`, 'INTEGER[]')).toBeNull();
    expect(staged(`('a')`, "ENUM('a')")).toBeNull();
    expect(staged(`('a\u0000b')`, 'VARCHAR')).toBeNull();
    expect(staged(`(NULL), ('a')`, 'VARCHAR')).toBeNull(); // an empty line
    expect(stageRows(rowsOf(`INSERT INTO t VALUES (1, 2)`), ['INTEGER'])).toBeNull();
  });
});
