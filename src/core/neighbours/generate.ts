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
import type { ColumnHint, HintValue, NeighbourPlan } from './plan.ts';
import { hashSeed, rngFrom, type Rng } from './prng.ts';
import { freshValue, fitValue, keyOf, rolesOf, shiftDate, type ColumnRole } from './roles.ts';
import { targetedRows } from './witness.ts';
import { quoteIdent, type FixtureSnapshot, type SnapshotColumn, type SnapshotTable } from './snapshot.ts';
import type { NeighbourData, TableChanges } from './types.ts';

/** Bumped when the same seed would give other data: reports name it so a seed is reproducible. */
export const GENERATOR_VERSION = 4;

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

/** This neighbour's mix: each kind of change on in about half the neighbours, at its own rate. */
interface Mix {
  pDrop: number;
  pDup: number;
  pPerturb: number;
  pNull: number;
  plant: boolean;
  tie: boolean;
}

function drawMix(rng: Rng): Mix {
  return {
    pDrop: rng.chance(0.5) ? 0.05 + rng.next() * 0.25 : 0,
    pDup: rng.chance(0.5) ? 0.05 + rng.next() * 0.2 : 0,
    pPerturb: rng.chance(0.6) ? 0.05 + rng.next() * 0.25 : 0,
    pNull: rng.chance(0.4) ? 0.05 + rng.next() * 0.15 : 0,
    plant: rng.chance(0.8),
    tie: rng.chance(0.5),
  };
}

/** The key columns of the tables drawn so far, by "table.column" (lower-case): what a foreign key may reference now. */
interface DrawnKeys {
  sets: Map<string, Set<string>>;
  values: Map<string, Cell[]>;
}

/** What every table of one neighbour is drawn with. Tables are drawn in the snapshot's order, parents first. */
interface Neighbour {
  rng: Rng;
  snapshot: FixtureSnapshot;
  plan: NeighbourPlan;
  mix: Mix;
  /** Tables (lower-case) whose every row a child references in the fixture. */
  covered: Set<string>;
  drawn: DrawnKeys;
}

/** A table being drawn. */
interface Drawing {
  table: SnapshotTable;
  roles: ColumnRole[];
  rows: Cell[][];
  changes: TableChanges;
  /** Per column, the values rows hold (keyOf) after the drops, plus those duplicates and planting add. */
  used: Set<string>[];
}

const parentColumn = (fk: { table: string; column: string }) => `${fk.table.toLowerCase()}.${fk.column.toLowerCase()}`;
const parentKeys = (drawn: DrawnKeys, role: ColumnRole) =>
  role.fk ? drawn.sets.get(parentColumn(role.fk)) : undefined;
const parentValues = (drawn: DrawnKeys, role: ColumnRole) =>
  role.fk ? drawn.values.get(parentColumn(role.fk)) : undefined;
const roleNamed = (roles: ColumnRole[], name: string) => roles.find((r) => r.column.name.toLowerCase() === name);

/** Generate the data of one neighbour (pure; the same inputs give the same rows). */
export function generateNeighbour(snapshot: FixtureSnapshot, plan: NeighbourPlan, seed: number): NeighbourData {
  const rng = rngFrom(seed);
  const n: Neighbour = {
    rng,
    snapshot,
    plan,
    mix: drawMix(rng),
    covered: coveredParents(snapshot),
    drawn: { sets: new Map(), values: new Map() },
  };
  const out: NeighbourData = { seed, tables: [], changes: [] };
  for (const table of snapshot.tables) {
    const { rows, changes } = drawTable(n, table);
    out.tables.push({ name: table.name, rows });
    out.changes.push(changes);
  }
  targetedRows(snapshot, plan, out);
  keepChecks(snapshot, plan, out);
  reorderRows(snapshot, out);
  return out;
}

/** The bodies of a table's CHECK constraints, as its DDL states them (balanced parentheses). */
function checkBodies(ddl: string): string[] {
  const out: string[] = [];
  const re = /\bCHECK\s*\(/gi;
  for (let m = re.exec(ddl); m; m = re.exec(ddl)) {
    let depth = 1;
    let i = re.lastIndex;
    let quote = '';
    for (; i < ddl.length && depth > 0; i++) {
      const ch = ddl[i]!;
      if (quote) {
        if (ch === quote) quote = '';
      } else if (ch === "'" || ch === '"') quote = ch;
      else if (ch === '(') depth++;
      else if (ch === ')') depth--;
    }
    out.push(ddl.slice(re.lastIndex, i - 1));
    re.lastIndex = i;
  }
  return out;
}

/** Whether a value is within the fixture's own values of the column: among them, or between their least and greatest. */
function withinFixture(role: ColumnRole, value: Cell): boolean {
  if (value === null || role.domain.some((v) => keyOf([v]) === keyOf([value]))) return true;
  const asNumber = (v: Cell) =>
    typeof v === 'number' ? v : typeof v === 'string' && role.column.kind === 'decimal' ? Number(v) : NaN;
  const n = asNumber(value);
  const dates = role.column.kind === 'date' || role.column.kind === 'timestamp' || role.column.kind === 'timestamptz';
  if (!Number.isFinite(n) && !(dates && typeof value === 'string')) return false;
  const present = role.domain.filter((v) => v !== null);
  if (!present.length) return false;
  if (dates) {
    const texts = present.map(String).sort();
    return String(value) >= texts[0]! && String(value) <= texts[texts.length - 1]!;
  }
  const nums = present.map(asNumber).filter(Number.isFinite);
  return nums.length > 0 && n >= Math.min(...nums) && n <= Math.max(...nums);
}

/**
 * CHECK constraints hold: a value the generator wrote (±1, a planted literal or its boundary, a shifted date)
 * in a column a CHECK reads, outside the fixture's values of that column (not among them, not between the
 * least and the greatest), is replaced by one of them. The generator does not evaluate a CHECK: the fixture's
 * own values satisfy a one-column CHECK, and most are ranges (`qty BETWEEN 1 AND 3`, `price > 0`), which the
 * values between them satisfy too. A neighbour that breaks one failed to load and was discarded, and with it
 * the chance to catch a coincidental match. Key and distinct columns keep their fresh values (they must stay unique).
 */
function keepChecks(snapshot: FixtureSnapshot, plan: NeighbourPlan, data: NeighbourData): void {
  const rng = rngFrom(hashSeed(`check:${data.seed}`));
  snapshot.tables.forEach((table, t) => {
    const bodies = checkBodies(table.ddl);
    if (!bodies.length) return;
    const rows = data.tables[t]!.rows;
    const roles = rolesOf(snapshot, table, plan);
    for (const role of roles) {
      if (role.key || role.distinct || !role.domain.length) continue;
      const name = role.column.name.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const named = new RegExp(`(^|[^\\w$])["\`\\[]?${name}["\`\\]]?($|[^\\w$])`, 'i');
      if (!bodies.some((b) => named.test(b))) continue;
      for (const row of rows)
        if (!withinFixture(role, row[role.index] ?? null)) {
          row[role.index] = rng.pick(role.domain);
          data.changes[t]!.perturbed++;
        }
    }
  });
}

/**
 * The rows of each table in another order (v4), from a stream of its own (the values are those v3 drew
 * for the same seed): a database has no row order, so a candidate whose LIMIT without ORDER BY keeps
 * the right rows only because the fixture stores them in key order is caught. A table with a foreign
 * key to itself keeps its order (a child row must not come before its parent's).
 */
function reorderRows(snapshot: FixtureSnapshot, data: NeighbourData): void {
  const rng = rngFrom(hashSeed(`order:${data.seed}`));
  snapshot.tables.forEach((table, t) => {
    const rows = data.tables[t]!.rows;
    if (rows.length < 2 || table.foreignKeys.some((fk) => fk.table.toLowerCase() === table.name.toLowerCase())) return;
    for (let i = rows.length - 1; i > 0; i--) {
      const j = rng.int(i + 1);
      [rows[i], rows[j]] = [rows[j]!, rows[i]!];
    }
    data.changes[t]!.reordered = true;
  });
}

/** One table, change by change. Every step draws from the neighbour's one stream: their order is part of each seed's data. */
function drawTable(n: Neighbour, table: SnapshotTable): Drawing {
  const roles = rolesOf(n.snapshot, table, n.plan);
  const changes = noChanges(table);
  let rows = sampleRows(n.rng, table.rows, changes);
  rows = dropAtRandom(n, roles, rows, changes);
  rows = dropOrphans(n, roles, rows, changes);
  const d: Drawing = { table, roles, rows, changes, used: roles.map((role) => keysIn(rows, role.index)) };
  duplicateRows(n, d);
  perturbRows(n, d);
  addNulls(n, d);
  const singular = singularLiterals(n.plan, d);
  plantLiterals(n, d);
  keepSingular(n.rng, d, singular);
  plantTies(n, d);
  recordKeys(n.drawn, d);
  changes.rows_after = d.rows.length;
  return d;
}

function noChanges(table: SnapshotTable): TableChanges {
  return {
    table: table.name,
    rows_before: table.rows.length,
    rows_after: 0,
    dropped: 0,
    duplicated: 0,
    perturbed: 0,
    nulled: 0,
    planted: 0,
    tied: 0,
    reordered: false,
  };
}

const keysIn = (rows: Cell[][], index: number) => new Set(rows.map((r) => keyOf([r[index] ?? null])));

/** The fixture's rows, copied; past MAX_NEIGHBOUR_ROWS, a random sample of them in their order. */
function sampleRows(rng: Rng, fixtureRows: Cell[][], changes: TableChanges): Cell[][] {
  const rows = fixtureRows.map((r) => [...r]);
  if (rows.length <= MAX_NEIGHBOUR_ROWS) return rows;
  const keep = rows
    .map((_r, i) => [rng.next(), i] as const)
    .sort((a, b) => a[0] - b[0])
    .slice(0, MAX_NEIGHBOUR_ROWS)
    .map(([, i]) => i)
    .sort((a, b) => a - b);
  changes.dropped += rows.length - keep.length;
  return keep.map((i) => rows[i]!);
}

/**
 * Drops at the neighbour's rate, never below half the rows, and none in a table that covers its parent.
 * (`dropped` already counts the sample's drops: a table sampled from 1,500 rows or more gets none at random.)
 */
function dropAtRandom(n: Neighbour, roles: ColumnRole[], rows: Cell[][], changes: TableChanges): Cell[][] {
  const { pDrop } = n.mix;
  const covering = roles.some((r) => r.covering);
  const minRows = Math.ceil(rows.length / 2);
  return rows.filter(() => {
    if (pDrop > 0 && !covering && rows.length - changes.dropped > minRows && n.rng.chance(pDrop)) {
      changes.dropped++;
      return false;
    }
    return true;
  });
}

/** Rows whose parent row went (foreign keys hold). A row that was already an orphan in the fixture stays as it was. */
function dropOrphans(n: Neighbour, roles: ColumnRole[], rows: Cell[][], changes: TableChanges): Cell[][] {
  const hadParent = fixtureParentKeys(n.snapshot, roles);
  return rows.filter((r) => {
    for (const role of roles) {
      const current = parentKeys(n.drawn, role);
      const v = r[role.index] ?? null;
      if (!current || v === null) continue;
      const k = keyOf([v]);
      if (hadParent.get(role.index)?.has(k) && !current.has(k)) {
        changes.dropped++;
        return false;
      }
    }
    return true;
  });
}

/** Per foreign-key column (by index), the keys its parent has in the fixture. */
function fixtureParentKeys(snapshot: FixtureSnapshot, roles: ColumnRole[]): Map<number, Set<string>> {
  const out = new Map<number, Set<string>>();
  for (const role of roles) {
    const fk = role.fk;
    if (!fk) continue;
    const parent = snapshot.tables.find((t) => t.name.toLowerCase() === fk.table.toLowerCase());
    const at = parent?.columns.findIndex((c) => c.name.toLowerCase() === fk.column.toLowerCase()) ?? -1;
    if (parent && at >= 0) out.set(role.index, keysIn(parent.rows, at));
  }
  return out;
}

/** Duplicates at the neighbour's rate (200 a table at most), with fresh values where the table needs them distinct. */
function duplicateRows(n: Neighbour, d: Drawing): void {
  const { pDup } = n.mix;
  // A parent every row of which has a child in the fixture keeps that: a duplicate (a fresh key) would have none.
  if (pDup === 0 || n.covered.has(d.table.name.toLowerCase())) return;
  const pkRoles = d.roles.filter((r) =>
    d.table.primaryKey.some((c) => c.toLowerCase() === r.column.name.toLowerCase()),
  );
  const counter = { n: 0 };
  const base = d.rows.length;
  for (let i = 0; i < base && d.changes.duplicated < 200; i++) {
    if (!n.rng.chance(pDup)) continue;
    const copy = freshCopy(d, d.rows[i]!, pkRoles, counter);
    if (!copy) continue;
    for (const role of d.roles) d.used[role.index]!.add(keyOf([copy[role.index] ?? null]));
    d.rows.push(copy);
    d.changes.duplicated++;
  }
}

/** A copy of a row with fresh values in its distinct columns, or null when one cannot have any. */
function freshCopy(d: Drawing, row: Cell[], pkRoles: ColumnRole[], counter: { n: number }): Cell[] | null {
  const copy = [...row];
  for (const role of d.roles) {
    if (!role.distinct) continue;
    // Composite primary keys need one fresh part, not all.
    if (pkRoles.length > 1 && pkRoles.includes(role) && !role.fk && role !== pkRoles.find((p) => !p.fk)) continue;
    if (pkRoles.length > 1 && pkRoles.includes(role) && role.fk) continue;
    // A fresh value in a foreign-key column would reference nothing.
    if (role.fk) return null;
    const fresh = freshValue(role, d.used[role.index]!, counter);
    if (fresh === null) return null;
    copy[role.index] = fresh;
  }
  if (pkRoles.length > 1 && pkRoles.every((p) => p.fk)) return null; // a junction row would repeat its key
  return copy;
}

/** Perturbations within the domain at the neighbour's rate; swaps for distinct columns. Keys and covering columns keep theirs. */
function perturbRows(n: Neighbour, d: Drawing): void {
  const { pPerturb } = n.mix;
  if (pPerturb === 0) return;
  for (const role of d.roles) {
    if (role.key || role.covering) continue;
    const parents = parentValues(n.drawn, role);
    for (const row of d.rows)
      if (n.rng.chance(pPerturb) && perturbCell(n.rng, d.rows, row, role, parents)) d.changes.perturbed++;
  }
}

/** Another value in one cell: false when there is none to take (a foreign key with no parent key drawn). */
function perturbCell(rng: Rng, rows: Cell[][], row: Cell[], role: ColumnRole, parents: Cell[] | undefined): boolean {
  if (role.distinct) {
    const other = rows[rng.int(rows.length)]!;
    [row[role.index], other[role.index]] = [other[role.index] ?? null, row[role.index] ?? null];
  } else if (role.fk) {
    if (!parents?.length) return false;
    row[role.index] = rng.pick(parents);
  } else row[role.index] = perturbValue(rng, role.column, row[role.index] ?? null, role.domain);
  return true;
}

/**
 * NULLs where the column allows them and it matters: at the neighbour's rate, and in one or two rows
 * of a column the queries test with IS [NOT] NULL.
 */
function addNulls(n: Neighbour, d: Drawing): void {
  const { pNull, plant } = n.mix;
  for (const role of d.roles) {
    if (!role.mayNull || role.distinct) continue;
    if (pNull > 0)
      for (const row of d.rows)
        if (row[role.index] !== null && n.rng.chance(pNull)) {
          row[role.index] = null;
          d.changes.nulled++;
        }
    if (plant && d.rows.length && n.plan.nullColumns.includes(role.column.name.toLowerCase()))
      for (let k = 1 + n.rng.int(2); k > 0; k--) {
        const row = d.rows[n.rng.int(d.rows.length)]!;
        if (row[role.index] !== null) d.changes.nulled++;
        row[role.index] = null;
      }
  }
}

/**
 * Per column index, the literals (keyOf) compared with `=` or IN that name at most one row of the
 * fixture: they name at most one row here too (keepSingular). Planting moves such a literal to
 * another row (or, when absent, puts it in one), so a query that reads it as a key
 * (`x = (SELECT id … WHERE name = 'Kyle')`) stays right, while one that hard-codes the key it had
 * in the fixture (`code = 'AFG'` for 'Afghanistan') does not. Whether or not this neighbour plants:
 * a duplicated row must not repeat such a literal either.
 */
function singularLiterals(plan: NeighbourPlan, d: Drawing): Map<number, Set<string>> {
  const singular = new Map<number, Set<string>>();
  for (const hint of plan.hints) {
    const role = roleNamed(d.roles, hint.column);
    if (!role || role.key || role.fk || !hint.equality) continue;
    for (const v of hint.values) {
      const cell = fitValue(role.column, v);
      if (cell === null) continue;
      const k = keyOf([cell]);
      if (d.table.rows.filter((r) => keyOf([r[role.index] ?? null]) === k).length <= 1)
        singular.set(role.index, (singular.get(role.index) ?? new Set()).add(k));
    }
  }
  return singular;
}

/** The queries' literals and their boundaries, in a few rows of the compared columns. */
function plantLiterals(n: Neighbour, d: Drawing): void {
  if (!n.mix.plant || !d.rows.length) return;
  for (const hint of n.plan.hints) {
    const role = roleNamed(d.roles, hint.column);
    if (!role || role.key || role.covering) continue;
    // A foreign-key column takes a literal only when it is a key of the parent (the key still holds).
    const parentHas = role.fk ? parentKeys(n.drawn, role) : undefined;
    if (role.fk && !parentHas) continue;
    const candidates = hint.values.flatMap(boundaryValues);
    const times = 1 + n.rng.int(3);
    for (let k = 0; k < times; k++) {
      const value = fitValue(role.column, n.rng.pick(candidates));
      if (value === null) continue;
      if (parentHas && !parentHas.has(keyOf([value]))) continue;
      plantValue(n.rng, d, hint, role, value);
    }
  }
}

/** One literal in a random row; in a distinct column that holds it already, it changes places with another row's value (it stays unique). */
function plantValue(rng: Rng, d: Drawing, hint: ColumnHint, role: ColumnRole, value: Cell): void {
  const { rows } = d;
  if (role.distinct && d.used[role.index]!.has(keyOf([value]))) {
    const at = rows.findIndex((r) => keyOf([r[role.index] ?? null]) === keyOf([value]));
    const other = rng.int(rows.length);
    if (!hint.equality || at < 0 || other === at) return;
    [rows[at]![role.index], rows[other]![role.index]] = [rows[other]![role.index] ?? null, value];
    d.changes.planted++;
    return;
  }
  rows[rng.int(rows.length)]![role.index] = value;
  d.used[role.index]!.add(keyOf([value]));
  d.changes.planted++;
}

/** Duplicates, perturbations and planting may have put a singular literal in several rows: one keeps it. */
function keepSingular(rng: Rng, d: Drawing, singular: Map<number, Set<string>>): void {
  for (const [index, literals] of singular) {
    const role = d.roles[index]!;
    const others = role.domain.filter((v) => !literals.has(keyOf([v])));
    for (const k of literals) {
      const holders = d.rows.flatMap((r, i) => (keyOf([r[index] ?? null]) === k ? [i] : []));
      if (holders.length <= 1) continue;
      const keep = rng.pick(holders);
      for (const i of holders) {
        if (i === keep) continue;
        if (others.length) d.rows[i]![index] = rng.pick(others);
        else if (role.mayNull) d.rows[i]![index] = null;
        d.changes.perturbed++;
      }
    }
  }
}

/** Ties at the extremes of ordering keys and MAX/MIN arguments. */
function plantTies(n: Neighbour, d: Drawing): void {
  if (!n.mix.tie || d.rows.length < 2) return;
  for (const name of n.plan.tieColumns) {
    const role = roleNamed(d.roles, name);
    if (!role || role.key || role.fk || role.distinct) continue;
    const present = d.rows
      .map((r) => r[role.index] ?? null)
      .filter((v): v is number | string => typeof v === 'number' || typeof v === 'string');
    if (present.length < 2) continue;
    const sorted = [...present].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const extreme of [sorted[sorted.length - 1]!, sorted[0]!]) {
      d.rows[n.rng.int(d.rows.length)]![role.index] = extreme;
      d.changes.tied++;
    }
  }
}

/** This table's key values, for the foreign keys of the tables drawn after it. */
function recordKeys(drawn: DrawnKeys, d: Drawing): void {
  for (const role of d.roles) {
    if (!role.key) continue;
    const at = `${d.table.name.toLowerCase()}.${role.column.name.toLowerCase()}`;
    drawn.sets.set(at, keysIn(d.rows, role.index));
    drawn.values.set(
      at,
      d.rows.map((r) => r[role.index] ?? null).filter((v) => v !== null),
    );
  }
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
