/**
 * A loaded fixture read back through the engine's own catalog: each table's
 * DDL as the engine prints it (so a neighbour keeps the schema, keys and
 * constraints verbatim), its columns, keys and rows. Reads go through
 * `engine.execute`, the same sandbox as any query.
 */
import type { Engine, EngineName } from '../engine.ts';
import { fail, ok, type Outcome } from '../errors.ts';
import type { Cell, Column } from '../value/kind.ts';

export interface SnapshotColumn extends Column {
  notNull: boolean;
}

export interface ForeignKey {
  columns: string[];
  table: string;
  refColumns: string[];
}

export interface SnapshotTable {
  name: string;
  /** CREATE TABLE as the engine's catalog has it. */
  ddl: string;
  columns: SnapshotColumn[];
  primaryKey: string[];
  /** UNIQUE constraints (declared), each a list of columns. */
  uniques: string[][];
  foreignKeys: ForeignKey[];
  rows: Cell[][];
}

export interface FixtureSnapshot {
  engine: EngineName;
  /** In an order that creates referenced tables first. */
  tables: SnapshotTable[];
  /** CREATE VIEW statements, in catalog order. */
  views: string[];
  totalRows: number;
}

/** Rows read per fixture at most: past it neighbours are not generated (the budget of a scratch copy). */
export const MAX_SNAPSHOT_ROWS = 200_000;

const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

async function rowsOf(engine: Engine, sql: string): Promise<Outcome<Cell[][]>> {
  const r = await engine.execute(sql, { maxRows: MAX_SNAPSHOT_ROWS + 1, timeoutMs: 30_000 });
  return r.ok
    ? ok(r.value.rows)
    : fail(r.error.code, `Cannot read the fixture for neighbours (${sql.slice(0, 60)}…): ${r.error.message}`);
}

const asList = (cell: Cell): string[] => (Array.isArray(cell) ? cell.map(String) : cell === null ? [] : [String(cell)]);

async function sqliteTables(engine: Engine): Promise<
  Outcome<{
    tables: Omit<SnapshotTable, 'rows' | 'columns'>[];
    views: string[];
    columns: Map<string, { name: string; notNull: boolean }[]>;
  }>
> {
  const list = await rowsOf(
    engine,
    "SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql IS NOT NULL ORDER BY rowid",
  );
  if (!list.ok) return list;
  const views = await rowsOf(
    engine,
    "SELECT sql FROM sqlite_schema WHERE type = 'view' AND sql IS NOT NULL ORDER BY rowid",
  );
  if (!views.ok) return views;
  const tables: Omit<SnapshotTable, 'rows' | 'columns'>[] = [];
  const columns = new Map<string, { name: string; notNull: boolean }[]>();
  for (const [name, ddl] of list.value) {
    const t = String(name);
    const info = await rowsOf(engine, `SELECT name, "notnull", pk FROM pragma_table_info(${lit(t)}) ORDER BY cid`);
    if (!info.ok) return info;
    const fks = await rowsOf(
      engine,
      `SELECT id, "table", "from", "to" FROM pragma_foreign_key_list(${lit(t)}) ORDER BY id, seq`,
    );
    if (!fks.ok) return fks;
    const uniq = await rowsOf(
      engine,
      `SELECT il.name, ii.name FROM pragma_index_list(${lit(t)}) AS il, pragma_index_info(il.name) AS ii WHERE il."unique" = 1 AND il.origin = 'u' ORDER BY il.name, ii.seqno`,
    );
    if (!uniq.ok) return uniq;
    const primaryKey = info.value
      .filter((r) => Number(r[2]) > 0)
      .sort((a, b) => Number(a[2]) - Number(b[2]))
      .map((r) => String(r[0]));
    const byId = new Map<string, ForeignKey>();
    for (const [id, table, from, to] of fks.value) {
      const fk = byId.get(String(id)) ?? { columns: [], table: String(table), refColumns: [] };
      fk.columns.push(String(from));
      fk.refColumns.push(to === null ? '' : String(to));
      byId.set(String(id), fk);
    }
    const uniques = new Map<string, string[]>();
    for (const [index, col] of uniq.value)
      uniques.set(String(index), [...(uniques.get(String(index)) ?? []), String(col)]);
    columns.set(
      t,
      info.value.map((r) => ({ name: String(r[0]), notNull: Number(r[1]) === 1 })),
    );
    tables.push({
      name: t,
      ddl: String(ddl),
      primaryKey,
      uniques: [...uniques.values()],
      foreignKeys: [...byId.values()],
    });
  }
  return ok({ tables, views: views.value.map((r) => String(r[0])), columns });
}

async function duckdbTables(engine: Engine): Promise<
  Outcome<{
    tables: Omit<SnapshotTable, 'rows' | 'columns'>[];
    views: string[];
    columns: Map<string, { name: string; notNull: boolean }[]>;
  }>
> {
  const scope = 'database_name = current_database() AND schema_name = current_schema() AND NOT temporary';
  const list = await rowsOf(engine, `SELECT table_name, sql FROM duckdb_tables() WHERE ${scope} ORDER BY table_oid`);
  if (!list.ok) return list;
  const views = await rowsOf(
    engine,
    `SELECT sql FROM duckdb_views() WHERE ${scope} AND NOT internal ORDER BY view_oid`,
  );
  if (!views.ok) return views;
  const here = 'database_name = current_database() AND schema_name = current_schema()';
  const cols = await rowsOf(
    engine,
    `SELECT table_name, column_name, is_nullable FROM duckdb_columns() WHERE ${here} ORDER BY table_oid, column_index`,
  );
  if (!cols.ok) return cols;
  const cons = await rowsOf(
    engine,
    `SELECT table_name, constraint_type, constraint_column_names, referenced_table, referenced_column_names FROM duckdb_constraints() WHERE ${here} AND constraint_type IN ('PRIMARY KEY', 'UNIQUE', 'FOREIGN KEY') ORDER BY table_oid, constraint_index`,
  );
  if (!cons.ok) return cons;
  const columns = new Map<string, { name: string; notNull: boolean }[]>();
  for (const [t, c, nullable] of cols.value)
    columns.set(String(t), [...(columns.get(String(t)) ?? []), { name: String(c), notNull: nullable === false }]);
  const tables = list.value.map(([name, ddl]) => {
    const mine = cons.value.filter((r) => String(r[0]) === String(name));
    return {
      name: String(name),
      ddl: String(ddl),
      primaryKey: asList(mine.find((r) => r[1] === 'PRIMARY KEY')?.[2] ?? null),
      uniques: mine.filter((r) => r[1] === 'UNIQUE').map((r) => asList(r[2] ?? null)),
      foreignKeys: mine
        .filter((r) => r[1] === 'FOREIGN KEY')
        .map((r) => ({ columns: asList(r[2] ?? null), table: String(r[3]), refColumns: asList(r[4] ?? null) })),
    };
  });
  return ok({ tables, views: views.value.map((r) => String(r[0])), columns });
}

/** Parents before children (foreign keys), otherwise catalog order; cycles keep catalog order. */
function creationOrder<T extends { name: string; foreignKeys: ForeignKey[] }>(tables: T[]): T[] {
  const byName = new Map(tables.map((t) => [t.name.toLowerCase(), t]));
  const out: T[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (t: T) => {
    const key = t.name.toLowerCase();
    if (state.get(key)) return;
    state.set(key, 'visiting');
    for (const fk of t.foreignKeys) {
      const parent = byName.get(fk.table.toLowerCase());
      if (parent && parent !== t) visit(parent);
    }
    state.set(key, 'done');
    out.push(t);
  };
  for (const t of tables) visit(t);
  return out;
}

/** Read the loaded fixture: schema from the catalog, every row of every table. */
export async function readSnapshot(engine: Engine): Promise<Outcome<FixtureSnapshot>> {
  const catalog = engine.name === 'sqlite' ? await sqliteTables(engine) : await duckdbTables(engine);
  if (!catalog.ok) return catalog;
  const tables: SnapshotTable[] = [];
  let totalRows = 0;
  for (const t of creationOrder(catalog.value.tables)) {
    const r = await engine.execute(`SELECT * FROM ${quoteIdent(t.name)}`, {
      maxRows: MAX_SNAPSHOT_ROWS + 1,
      timeoutMs: 30_000,
    });
    if (!r.ok) return fail(r.error.code, `Cannot read table ${t.name} for neighbours: ${r.error.message}`);
    totalRows += r.value.rows.length;
    if (totalRows > MAX_SNAPSHOT_ROWS)
      return fail(
        'sandbox.resource_exhausted',
        `The fixture has more than ${MAX_SNAPSHOT_ROWS.toLocaleString('en-US')} rows: neighbour databases are not generated for it.`,
      );
    const declared = catalog.value.columns.get(t.name) ?? [];
    const pk = t.primaryKey.map((c) => c.toLowerCase());
    // SQLite foreign keys may name no parent column: they reference the parent's primary key.
    const columns = r.value.columns.map((c, i) => ({
      ...c,
      notNull: (declared[i]?.notNull ?? false) || (engine.name === 'duckdb' && pk.includes(c.name.toLowerCase())),
    }));
    tables.push({ ...t, columns, rows: r.value.rows });
  }
  for (const t of tables)
    for (const fk of t.foreignKeys)
      if (fk.refColumns.some((c) => c === '')) {
        const parent = tables.find((p) => p.name.toLowerCase() === fk.table.toLowerCase());
        fk.refColumns = fk.refColumns.map((c, i) => c || parent?.primaryKey[i] || '');
      }
  return ok({ engine: engine.name, tables, views: catalog.value.views, totalRows });
}
