/**
 * One neighbour database from a fixture snapshot, a plan and a seed: the same
 * schema, keys and constraints, different data. Each neighbour draws its own
 * mix of changes (test-suite style fuzzing, guided by the plan):
 *
 * - drop rows (children whose parent row went are dropped too: foreign keys hold);
 * - duplicate rows (fresh values in primary-key and unique columns);
 * - perturb values within the column's domain (another value the column holds,
 *   ±1 for integers, dates shifted by days; foreign keys to another parent key);
 * - NULLs in nullable columns that already hold NULLs, or that the reference (or a candidate
 *   without an outer join) tests with IS [NOT] NULL;
 * - plant the queries' literals (and their boundary neighbours: v−1, v, v+1,
 *   a day either side) in the compared columns (foreign keys included, when the
 *   literal is a parent key);
 * - ties at the extremes of ORDER BY keys and MAX/MIN arguments.
 *
 * Key columns (primary key, declared unique, referenced by a foreign key) are
 * never perturbed. A column whose fixture values are all distinct is kept
 * distinct (swaps, fresh values): data that is unique in practice stays unique,
 * so a query relying on it is not failed for it. Likewise a column with no NULL
 * in the fixture gets none (unless a query tests it for NULL), and a child table
 * that references every parent row in the fixture still does (its rows are not
 * dropped at random, nor moved to another parent, and the parent gets no
 * duplicate, which would have no child). A literal compared with `=` or IN that
 * names at most one row of the fixture names at most one row of a neighbour (it
 * may move to another row). A foreign-key column takes a planted literal only
 * when the parent has that key.
 */
import { bytesToHex } from '../value/json-codec.ts';
import type { Cell } from '../value/kind.ts';
import type { HintValue, NeighbourPlan } from './plan.ts';
import { hashSeed, rngFrom, type Rng } from './prng.ts';
import { freshValue, fitValue, keyOf, rolesOf, shiftDate, type ColumnRole } from './roles.ts';
import { targetedRows } from './witness.ts';
import { quoteIdent, type FixtureSnapshot, type SnapshotColumn } from './snapshot.ts';
import type { NeighbourData, TableChanges } from './types.ts';

/** Bumped when the same seed would give other data: reports name it so a seed is reproducible. */
export const GENERATOR_VERSION = 3;

/**
 * Rows a neighbour keeps per table at most (a random sample of a larger
 * table): a neighbour is any database of the schema, and loading a few
 * thousand rows per neighbour instead of the fixture's every row keeps K
 * neighbours per case affordable (world_1's city has 4,079).
 */
export const MAX_NEIGHBOUR_ROWS = 1000;

/** The seed of neighbour `index` of a case: a function of the base seed and the index only. */
export function neighbourSeed(baseSeed: number, index: number): number {
  return hashSeed(`neighbour:${baseSeed}:${index}`);
}

/** Boundary neighbours of a literal: the value, one below, one above (numbers and dates). */
function boundaryValues(value: HintValue): HintValue[] {
  if (typeof value === 'number') return [value, value - 1, value + 1];
  const asNumber = value.trim() !== '' ? Number(value) : NaN;
  if (Number.isFinite(asNumber) && /^-?\d+(\.\d+)?$/.test(value.trim())) return [value, asNumber - 1, asNumber + 1];
  const before = shiftDate(value, -1);
  const after = shiftDate(value, 1);
  return before && after ? [value, before, after] : [value];
}

/** Another value of the column's domain. */
function perturbValue(rng: Rng, column: SnapshotColumn, current: Cell, domain: readonly Cell[]): Cell {
  const fromDomain = () => (domain.length ? rng.pick(domain) : current);
  if (current === null) return fromDomain();
  if (rng.chance(0.5)) return fromDomain();
  if (typeof current === 'number' && column.kind !== 'float' && Number.isInteger(current))
    return current + (rng.chance(0.5) ? 1 : -1) * (1 + rng.int(3));
  if (typeof current === 'number' && Number.isFinite(current)) return current * (1 + (rng.next() - 0.5) / 5);
  if (
    typeof current === 'string' &&
    (column.kind === 'date' ||
      column.kind === 'timestamp' ||
      column.kind === 'timestamptz' ||
      column.kind === 'other' ||
      column.kind === 'text')
  ) {
    const shifted = /^\d{4}-\d{2}-\d{2}/.test(current)
      ? shiftDate(current, (rng.chance(0.5) ? 1 : -1) * (1 + rng.int(30)))
      : null;
    if (shifted) return shifted;
  }
  return fromDomain();
}

/**
 * Tables (lower-case) whose every row is referenced, through a single-column foreign key, by
 * some child table in the fixture: "every template type has a template" is the data's own rule.
 */
function coveredParents(snapshot: FixtureSnapshot): Set<string> {
  const lower = (s: string) => s.toLowerCase();
  const out = new Set<string>();
  for (const child of snapshot.tables)
    for (const fk of child.foreignKeys) {
      if (fk.columns.length !== 1) continue;
      const parent = snapshot.tables.find((t) => lower(t.name) === lower(fk.table));
      const at = parent?.columns.findIndex((c) => lower(c.name) === lower(fk.refColumns[0] ?? '')) ?? -1;
      const from = child.columns.findIndex((c) => lower(c.name) === lower(fk.columns[0]!));
      if (!parent || at < 0 || from < 0 || parent.rows.length === 0 || parent === child) continue;
      const referenced = new Set(child.rows.map((r) => keyOf([r[from] ?? null])));
      if (parent.rows.every((r) => referenced.has(keyOf([r[at] ?? null])))) out.add(lower(parent.name));
    }
  return out;
}

/** Generate the data of one neighbour (pure; the same inputs give the same rows). */
export function generateNeighbour(snapshot: FixtureSnapshot, plan: NeighbourPlan, seed: number): NeighbourData {
  const rng = rngFrom(seed);
  // This neighbour's mix: each kind of change on in about half the neighbours, at its own rate.
  const pDrop = rng.chance(0.5) ? 0.05 + rng.next() * 0.25 : 0;
  const pDup = rng.chance(0.5) ? 0.05 + rng.next() * 0.2 : 0;
  const pPerturb = rng.chance(0.6) ? 0.05 + rng.next() * 0.25 : 0;
  const pNull = rng.chance(0.4) ? 0.05 + rng.next() * 0.15 : 0;
  const plant = rng.chance(0.8);
  const tie = rng.chance(0.5);
  const covered = coveredParents(snapshot);
  const keys = new Map<string, Set<string>>(); // "table.column" → current key values (parents first)
  const keyValues = new Map<string, Cell[]>();
  const out: NeighbourData = { seed, tables: [], changes: [] };

  for (const table of snapshot.tables) {
    const roles = rolesOf(snapshot, table, plan);
    const changes: TableChanges = {
      table: table.name,
      rows_before: table.rows.length,
      rows_after: 0,
      dropped: 0,
      duplicated: 0,
      perturbed: 0,
      nulled: 0,
      planted: 0,
      tied: 0,
    };
    const parentKeys = (role: ColumnRole) =>
      role.fk ? keys.get(`${role.fk.table.toLowerCase()}.${role.fk.column.toLowerCase()}`) : undefined;
    const parentValues = (role: ColumnRole) =>
      role.fk ? keyValues.get(`${role.fk.table.toLowerCase()}.${role.fk.column.toLowerCase()}`) : undefined;
    const covering = roles.some((r) => r.covering);
    const originalParent = new Map<number, Set<string>>();
    for (const role of roles) {
      if (!role.fk) continue;
      const parent = snapshot.tables.find((t) => t.name.toLowerCase() === role.fk!.table.toLowerCase());
      const at = parent?.columns.findIndex((c) => c.name.toLowerCase() === role.fk!.column.toLowerCase()) ?? -1;
      if (parent && at >= 0) originalParent.set(role.index, new Set(parent.rows.map((r) => keyOf([r[at] ?? null]))));
    }
    // Drops (never below half the rows), then rows whose parent went.
    let rows = table.rows.map((r) => [...r]);
    if (rows.length > MAX_NEIGHBOUR_ROWS) {
      const keep = rows
        .map((_r, i) => [rng.next(), i] as const)
        .sort((a, b) => a[0] - b[0])
        .slice(0, MAX_NEIGHBOUR_ROWS)
        .map(([, i]) => i)
        .sort((a, b) => a - b);
      changes.dropped += rows.length - keep.length;
      rows = keep.map((i) => rows[i]!);
    }
    const minRows = Math.ceil(rows.length / 2);
    rows = rows.filter((_r) => {
      if (pDrop > 0 && !covering && rows.length - changes.dropped > minRows && rng.chance(pDrop)) {
        changes.dropped++;
        return false;
      }
      return true;
    });
    rows = rows.filter((r) => {
      for (const role of roles) {
        const current = parentKeys(role);
        const v = r[role.index] ?? null;
        if (!current || v === null) continue;
        const k = keyOf([v]);
        // A row that was already an orphan in the fixture stays as it was.
        if (originalParent.get(role.index)?.has(k) && !current.has(k)) {
          changes.dropped++;
          return false;
        }
      }
      return true;
    });
    // Duplicates with fresh values where the table needs them distinct.
    const used = roles.map((role) => new Set(rows.map((r) => keyOf([r[role.index] ?? null]))));
    const pkRoles = roles.filter((r) => table.primaryKey.some((c) => c.toLowerCase() === r.column.name.toLowerCase()));
    const counter = { n: 0 };
    // A parent every row of which has a child in the fixture keeps that: a duplicate (a fresh key) would have none.
    if (pDup > 0 && !covered.has(table.name.toLowerCase())) {
      const base = rows.length;
      for (let i = 0; i < base && changes.duplicated < 200; i++) {
        if (!rng.chance(pDup)) continue;
        const copy = [...rows[i]!];
        let okCopy = true;
        for (const role of roles) {
          if (!role.distinct) continue;
          // Composite primary keys need one fresh part, not all.
          if (pkRoles.length > 1 && pkRoles.includes(role) && !role.fk && role !== pkRoles.find((p) => !p.fk)) continue;
          if (pkRoles.length > 1 && pkRoles.includes(role) && role.fk) continue;
          // A fresh value in a foreign-key column would reference nothing.
          if (role.fk) {
            okCopy = false;
            break;
          }
          const fresh = freshValue(role, used[role.index]!, counter);
          if (fresh === null) {
            okCopy = false;
            break;
          }
          copy[role.index] = fresh;
        }
        if (pkRoles.length > 1 && pkRoles.every((p) => p.fk)) okCopy = false; // a junction row would repeat its key
        if (!okCopy) continue;
        for (const role of roles) used[role.index]!.add(keyOf([copy[role.index] ?? null]));
        rows.push(copy);
        changes.duplicated++;
      }
    }
    // Perturbations within the domain; swaps for distinct columns.
    for (const role of roles) {
      if (role.key || pPerturb === 0) continue;
      if (role.covering) continue;
      const parents = parentValues(role);
      for (let r = 0; r < rows.length; r++) {
        if (!rng.chance(pPerturb)) continue;
        const row = rows[r]!;
        if (role.distinct) {
          const other = rows[rng.int(rows.length)]!;
          [row[role.index], other[role.index]] = [other[role.index] ?? null, row[role.index] ?? null];
        } else if (role.fk) {
          if (parents?.length) row[role.index] = rng.pick(parents);
          else continue;
        } else row[role.index] = perturbValue(rng, role.column, row[role.index] ?? null, role.domain);
        changes.perturbed++;
      }
    }
    // NULLs where the column allows them and it matters: at the neighbour's rate, and in one or two rows
    // of a column the queries test with IS [NOT] NULL.
    for (const role of roles) {
      if (!role.mayNull || role.distinct) continue;
      if (pNull > 0)
        for (const row of rows)
          if (row[role.index] !== null && rng.chance(pNull)) {
            row[role.index] = null;
            changes.nulled++;
          }
      if (plant && rows.length && plan.nullColumns.includes(role.column.name.toLowerCase()))
        for (let n = 1 + rng.int(2); n > 0; n--) {
          const row = rows[rng.int(rows.length)]!;
          if (row[role.index] !== null) changes.nulled++;
          row[role.index] = null;
        }
    }
    // The queries' literals and their boundaries, in a few rows. A literal compared with `=` or IN
    // that names at most one row of the fixture names at most one row here too (enforced below):
    // planting it moves it to another row (or, when absent, puts it in one), so a query that reads it
    // as a key (`x = (SELECT id … WHERE name = 'Kyle')`) stays right, while one that hard-codes the
    // key it had in the fixture (`code = 'AFG'` for 'Afghanistan') does not.
    // (Whether or not this neighbour plants: a duplicated row must not repeat such a literal either.)
    const singular = new Map<number, Set<string>>(); // column index → literals (keyOf) kept to one row
    for (const hint of plan.hints) {
      const role = roles.find((r) => r.column.name.toLowerCase() === hint.column);
      if (!role || role.key || role.fk || !hint.equality) continue;
      for (const v of hint.values) {
        const cell = fitValue(role.column, v);
        if (cell === null) continue;
        const k = keyOf([cell]);
        if (table.rows.filter((r) => keyOf([r[role.index] ?? null]) === k).length <= 1)
          singular.set(role.index, (singular.get(role.index) ?? new Set()).add(k));
      }
    }
    if (plant && rows.length)
      for (const hint of plan.hints) {
        const role = roles.find((r) => r.column.name.toLowerCase() === hint.column);
        if (!role || role.key || role.covering) continue;
        // A foreign-key column takes a literal only when it is a key of the parent (the key still holds).
        const parentHas = role.fk ? parentKeys(role) : undefined;
        if (role.fk && !parentHas) continue;
        const candidates = hint.values.flatMap(boundaryValues);
        const times = 1 + rng.int(3);
        for (let n = 0; n < times; n++) {
          const value = fitValue(role.column, rng.pick(candidates));
          if (value === null) continue;
          if (parentHas && !parentHas.has(keyOf([value]))) continue;
          if (role.distinct && used[role.index]!.has(keyOf([value]))) {
            // A distinct column: the literal changes places with another row's value (it stays unique).
            const at = rows.findIndex((r) => keyOf([r[role.index] ?? null]) === keyOf([value]));
            const other = rng.int(rows.length);
            if (!hint.equality || at < 0 || other === at) continue;
            [rows[at]![role.index], rows[other]![role.index]] = [rows[other]![role.index] ?? null, value];
            changes.planted++;
            continue;
          }
          rows[rng.int(rows.length)]![role.index] = value;
          used[role.index]!.add(keyOf([value]));
          changes.planted++;
        }
      }
    // Duplicates, perturbations and planting may have put a singular literal in several rows: one keeps it.
    for (const [index, literals] of singular) {
      const role = roles[index]!;
      const others = role.domain.filter((v) => !literals.has(keyOf([v])));
      for (const k of literals) {
        const holders = rows.flatMap((r, i) => (keyOf([r[index] ?? null]) === k ? [i] : []));
        if (holders.length <= 1) continue;
        const keep = rng.pick(holders);
        for (const i of holders) {
          if (i === keep) continue;
          if (others.length) rows[i]![index] = rng.pick(others);
          else if (role.mayNull) rows[i]![index] = null;
          changes.perturbed++;
        }
      }
    }
    // Ties at the extremes of ordering keys and MAX/MIN arguments.
    if (tie && rows.length >= 2)
      for (const name of plan.tieColumns) {
        const role = roles.find((r) => r.column.name.toLowerCase() === name);
        if (!role || role.key || role.fk || role.distinct) continue;
        const present = rows
          .map((r) => r[role.index] ?? null)
          .filter((v): v is number | string => typeof v === 'number' || typeof v === 'string');
        if (present.length < 2) continue;
        const sorted = [...present].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        for (const extreme of [sorted[sorted.length - 1]!, sorted[0]!]) {
          rows[rng.int(rows.length)]![role.index] = extreme;
          changes.tied++;
        }
      }
    for (const role of roles) {
      if (!role.key) continue;
      keys.set(
        `${table.name.toLowerCase()}.${role.column.name.toLowerCase()}`,
        new Set(rows.map((r) => keyOf([r[role.index] ?? null]))),
      );
      keyValues.set(
        `${table.name.toLowerCase()}.${role.column.name.toLowerCase()}`,
        rows.map((r) => r[role.index] ?? null).filter((v) => v !== null),
      );
    }
    changes.rows_after = rows.length;
    out.tables.push({ name: table.name, rows });
    out.changes.push(changes);
  }
  targetedRows(snapshot, plan, out);
  return out;
}

function literal(column: SnapshotColumn, cell: Cell): string | null {
  if (cell === null) return 'NULL';
  if (typeof cell === 'boolean') return cell ? 'TRUE' : 'FALSE';
  if (typeof cell === 'bigint') return cell.toString();
  if (typeof cell === 'number') {
    if (!Number.isFinite(cell)) return null;
    return Number.isInteger(cell) ? String(cell) : String(cell);
  }
  if (cell instanceof Uint8Array) return `X'${bytesToHex(cell)}'`;
  if (typeof cell === 'string') return column.kind === 'decimal' ? cell : `'${cell.replace(/'/g, "''")}'`;
  return null;
}

/** The neighbour as one SQL dump: the fixture's own DDL, then its rows, then its views. Null when a value has no portable literal. */
export function neighbourDump(
  snapshot: FixtureSnapshot,
  data: NeighbourData,
): { sql: string } | { unsupported: string } {
  const parts: string[] = [];
  for (const table of snapshot.tables) {
    parts.push(`${table.ddl.trim().replace(/;$/, '')};`);
    const rows = data.tables.find((t) => t.name === table.name)?.rows ?? [];
    for (let start = 0; start < rows.length; start += 500) {
      const values: string[] = [];
      for (const row of rows.slice(start, start + 500)) {
        const cells: string[] = [];
        for (let i = 0; i < table.columns.length; i++) {
          const text = literal(table.columns[i]!, row[i] ?? null);
          if (text === null)
            return {
              unsupported: `${table.name}.${table.columns[i]!.name} holds a value with no portable SQL literal (${table.columns[i]!.engineType})`,
            };
          cells.push(text);
        }
        values.push(`(${cells.join(', ')})`);
      }
      parts.push(`INSERT INTO ${quoteIdent(table.name)} VALUES\n${values.join(',\n')};`);
    }
  }
  for (const view of snapshot.views) parts.push(`${view.trim().replace(/;$/, '')};`);
  return { sql: parts.join('\n') + '\n' };
}
