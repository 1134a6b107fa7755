import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ENGINE_NAMES, type EngineName } from '../../core/engine.ts';
import { sha256Hex } from '../../core/digest/sha256.ts';
import { openEngine } from '../../engines/node.ts';
import { oneOf, parseFlags } from '../args.ts';
import { CliError, EXIT } from '../cli-error.ts';
import { resolveFixture } from '../fixtures.ts';
import type { Io } from '../io.ts';
import { prettyJson } from '../json.ts';

export const DIGEST_HELP = `Usage: sql-verdict digest FILE... [--content --fixture PATH|NAME] [--json]

Print the SHA-256 of each file's raw bytes (the stamp of a corpus or a fixture dump:
editing even a comment moves it). With --content, load a fixture and print its
content digest: SHA-256 over a canonical, ordered dump of every table, the same for a
dump loaded in DuckDB or SQLite where the types allow.

Options:
  --content            compute the content digest of --fixture instead
  --fixture PATH|NAME  the fixture for --content
  --engine duckdb|duckdb-native|sqlite|pglite|postgres
  --database-url URL   the PostgreSQL server of --engine postgres (or SQL_VERDICT_DATABASE_URL)
  --json               print JSON
  -h, --help           show this help`;

export async function digestCommand(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseFlags('digest', argv, {
    content: { type: 'boolean' },
    fixture: { type: 'string' },
    engine: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.out(DIGEST_HELP);
    return EXIT.ok;
  }
  if (values.content) {
    if (!values.fixture) throw new CliError('digest --content needs --fixture PATH|NAME.');
    const fixture = resolveFixture(values.fixture, io.cwd);
    const requested = oneOf<EngineName>('--engine', values.engine, ENGINE_NAMES);
    const engineName = requested ?? fixture.engines[0]!;
    const engine = openEngine(engineName);
    try {
      const loaded = await engine.load(fixture.source);
      if (!loaded.ok) throw new CliError(`Cannot load fixture ${values.fixture}: ${loaded.error.message}`);
      const result = {
        fixture: loaded.value.name,
        engine: engineName,
        content_digest: loaded.value.contentDigest,
        tables: loaded.value.tables.map((t) => ({ name: t.name, rows: t.rowCount })),
      };
      io.out(
        values.json
          ? prettyJson(result)
          : `${result.content_digest}  ${result.fixture} (content, ${engineName}, ${result.tables.length} tables)`,
      );
      return EXIT.ok;
    } finally {
      await engine.close();
    }
  }
  if (positionals.length === 0) throw new CliError('digest: name at least one file (or use --content --fixture).');
  const rows: { file: string; bytes: number; sha256: string }[] = [];
  for (const file of positionals) {
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(readFileSync(path.resolve(io.cwd, file)));
    } catch (thrown) {
      throw new CliError(`Cannot read ${file}: ${(thrown as NodeJS.ErrnoException).code ?? String(thrown)}.`);
    }
    rows.push({ file, bytes: bytes.length, sha256: await sha256Hex(bytes) });
  }
  io.out(values.json ? prettyJson(rows) : rows.map((r) => `${r.sha256}  ${r.file}`).join('\n'));
  return EXIT.ok;
}
