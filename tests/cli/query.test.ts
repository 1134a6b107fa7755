import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { queryCommand } from '../../src/cli/commands/query.ts';
import { runCli } from '../helpers/cli.ts';
import { spiderDatabase } from '../helpers/paths.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'sql-verdict-cli-'));
const dump = path.join(dir, 'shop.sql');
writeFileSync(
  dump,
  'CREATE TABLE items (id INTEGER, price DECIMAL(10,2), big BIGINT);\nINSERT INTO items VALUES (1, 12.50, 9007199254740993), (2, 0.10, NULL);\n',
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sql-verdict query', () => {
  it('prints the table with exact values (DECIMAL 12.50 as 12.50)', async () => {
    const run = await runCli(['query', '--fixture', dump, 'SELECT * FROM items ORDER BY id']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/DECIMAL\(10,2\)/);
    expect(run.stdout).toMatch(/12\.50/);
    expect(run.stdout).toMatch(/9007199254740993/);
    expect(run.stdout).toMatch(/\(2 rows\)/);
  });

  it('--json prints columns and typed rows, exact', async () => {
    const run = await runCli(['query', '--fixture', dump, 'SELECT price, big FROM items ORDER BY id', '--json']);
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout);
    expect(json.columns).toEqual([
      { name: 'price', kind: 'decimal', engine_type: 'DECIMAL(10,2)' },
      { name: 'big', kind: 'integer', engine_type: 'BIGINT' },
    ]);
    expect(json.rows).toEqual([
      ['12.50', '9007199254740993'],
      ['0.10', null],
    ]);
  });

  it('--json prints a large result in blocks of whole lines, never one string; the text is the same JSON', async () => {
    const chunks: string[] = [];
    const io = {
      out: (t: string) => chunks.push(t.endsWith('\n') ? t : `${t}\n`),
      err: () => undefined,
      cwd: dir,
      env: {},
    };
    const code = await queryCommand(
      ['--fixture', dump, '--json', "SELECT range AS n, repeat('x', 40) AS s FROM range(60000)"],
      io,
    );
    expect(code).toBe(0);
    expect(chunks.length).toBeGreaterThan(2);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(1.2 * 2 ** 20);
    expect(chunks.every((c) => c.endsWith('\n'))).toBe(true);
    const json = JSON.parse(chunks.join(''));
    expect(json).toMatchObject({ ok: true, row_count: 60000 });
    expect(json.rows[59999]).toEqual([59999, 'x'.repeat(40)]);
  });

  it('--max-result-bytes stops a result past the budget (resource_exhausted, the budget named); a bad size is exit 2', async () => {
    const over = await runCli([
      'query',
      '--fixture',
      dump,
      '--timeout-ms',
      '60000',
      '--max-result-bytes',
      '1MiB',
      "SELECT repeat('x', 8192) FROM range(1000000)",
    ]);
    expect(over.code).toBe(1);
    expect(over.stderr).toMatch(
      /sandbox\.resource_exhausted \/ resource_exhausted\]: The result is larger than 1 MiB \(max_result_bytes/,
    );
    const bad = await runCli(['query', '--fixture', dump, '--max-result-bytes', '12 parsecs', 'SELECT 1']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /--max-result-bytes must be a size in bytes such as 268435456, 256MiB or 64MB, got "12 parsecs"/,
    );
  });

  it('runs a Spider SQLite database on the sqlite engine', async () => {
    const run = await runCli([
      'query',
      '--fixture',
      spiderDatabase('concert_singer'),
      'SELECT count(*) AS n FROM singer',
      '--json',
    ]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ engine: 'sqlite', rows: [[6]] });
  });

  it('exits 1 with the reason when the query is rejected or fails', async () => {
    const rejected = await runCli(['query', '--fixture', dump, 'DELETE FROM items']);
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toMatch(/sandbox\.statement_rejected.*DELETE/);
    const missing = await runCli(['query', '--fixture', dump, 'SELECT nope FROM items', '--json']);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout).error).toMatchObject({ code: 'execution.error', category: 'missing_column' });
  });

  it('stops a runaway query at --timeout-ms', async () => {
    const run = await runCli([
      'query',
      '--fixture',
      dump,
      '--timeout-ms',
      '800',
      'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r',
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/sandbox\.timeout/);
  });

  it.each([
    [['query', '--fixture', path.join(dir, 'missing.sql'), 'SELECT 1'], /Fixture not found: .*missing\.sql/],
    [['query', '--fixture', dump, '--bogus', 'SELECT 1'], /Unknown option '--bogus'/],
    [['query', 'SELECT 1'], /--fixture is required/],
    [['query', '--fixture', dump], /expected exactly one SQL argument/],
    [['query', '--fixture', dump, '--timeout-ms', 'soon', 'SELECT 1'], /--timeout-ms must be a positive whole number/],
    [['query', '--fixture', dump, '--engine', 'oracle', 'SELECT 1'], /--engine must be one of duckdb, sqlite/],
    [['frobnicate'], /Unknown command "frobnicate"/],
  ])('exits 2 with a clear message for bad input: %j', async (args, message) => {
    const run = await runCli(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it("SQLite's 'localtime' is UTC whatever the machine's time zone (TZ=Asia/Tokyo), the clock frozen or not", async () => {
    const sql =
      "SELECT datetime('now', 'localtime') AS now_local, datetime('2025-01-01 00:30:00', 'localtime') AS local, datetime('2025-01-01 00:30:00', 'utc') AS utc";
    const frozen = await runCli(
      ['query', '--fixture', dump, '--engine', 'sqlite', '--as-of', '2025-12-31T12:34:56Z', '--json', sql],
      { env: { TZ: 'Asia/Tokyo' } },
    );
    expect(frozen.code, frozen.stderr).toBe(0);
    expect(JSON.parse(frozen.stdout).rows).toEqual([
      ['2025-12-31 12:34:56', '2025-01-01 00:30:00', '2025-01-01 00:30:00'],
    ]);
  });

  it('a clock function on a fixture without as_of says how to freeze the clock, not only that icu is missing', async () => {
    const run = await runCli(['query', '--fixture', dump, '--engine', 'duckdb', 'SELECT current_date AS d']);
    expect(run.code).toBe(1);
    expect(run.stderr + run.stdout).toMatch(/current_date reads the clock, .*as_of instant.*--as-of/);
    const frozen = await runCli([
      'query',
      '--fixture',
      dump,
      '--as-of',
      '2025-06-30T18:00:00Z',
      'SELECT current_date AS d',
    ]);
    expect(frozen.code).toBe(0);
    expect(frozen.stdout).toMatch(/2025-06-30/);
  });

  it('reports an unreadable dump by file name', async () => {
    const bad = path.join(dir, 'broken.sql');
    writeFileSync(bad, 'this is not sql');
    const run = await runCli(['query', '--fixture', bad, 'SELECT 1']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/broken\.sql.*syntax error/);
  });

  it('--help documents the command', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/query/);
    const sub = await runCli(['query', '--help']);
    expect(sub.stdout).toMatch(/--timeout-ms/);
  });
});

describe('sql-verdict digest', () => {
  it('prints the SHA-256 of raw bytes, like shasum -a 256', async () => {
    const run = await runCli(['digest', dump, '--json']);
    expect(run.code).toBe(0);
    const { createHash } = await import('node:crypto');
    const { readFileSync } = await import('node:fs');
    expect(JSON.parse(run.stdout)[0].sha256).toBe(createHash('sha256').update(readFileSync(dump)).digest('hex'));
  });

  it('gives the same content digest for a dump on both engines', async () => {
    const duck = await runCli(['digest', '--content', '--fixture', dump, '--json']);
    const lite = await runCli(['digest', '--content', '--fixture', dump, '--engine', 'sqlite', '--json']);
    expect(JSON.parse(duck.stdout).content_digest).toBe(JSON.parse(lite.stdout).content_digest);
  });
});
