/**
 * Generator v3's targeted rows, made after every table of a neighbour is drawn (generate.ts), each
 * from a random stream of its own so the rest of the neighbour is the data v2 drew for the seed:
 *
 * - witness rows: the reference's equality literals meet in one row chain. Where the reference
 *   joins a table T to U (`T.c = U.d`) and tests U with a literal (`U.h = 'Aberdeen'`), a row of T
 *   takes, in c, the d of a row of U that holds the literal, for every such join at once: a flight
 *   whose destination is an airport in Aberdeen *and* whose airline is the one named 'United
 *   Airlines'. Two literals that each name rows rarely meet in one row by chance;
 * - just-miss rows: a row of U that holds an equality literal (of either query), preferring rows
 *   that other tables reference, takes another value of the column's own domain, so the row no
 *   longer matches it: a query that drops or changes that conjunct then reads other rows;
 * - boundary rows: a numeric column compared with a bound (`>=`, `<`, BETWEEN) gets the bound
 *   itself in one row, whose other numeric columns the queries mention get values of their own
 *   (none else has them), so whether the bound is in or out shows in any projection or grouping.
 *
 * The generator's invariants hold: keys, declared-unique and distinct columns are not written
 * (a foreign key only takes a key its parent has), a column that covers its parent keeps
 * covering it, and a just-miss leaves every literal at least one row of its own.
 */
import type { Cell } from '../value/kind.ts';
import type { ColumnHint, NeighbourPlan } from './plan.ts';
import { hashSeed, rngFrom, type Rng } from './prng.ts';
import { fitValue, keyOf, rolesOf, type ColumnRole } from './roles.ts';
import type { FixtureSnapshot, SnapshotTable } from './snapshot.ts';
import type { NeighbourData, TableChanges } from './types.ts';

interface Drawn {
  table: SnapshotTable;
  roles: ColumnRole[];
  rows: Cell[][];
  changes: TableChanges;
}

const lower = (s: string) => s.toLowerCase();
const NUMERIC = new Set(['integer', 'float', 'decimal']);

/** A column the passes may write: not a key, not kept distinct. */
const writable = (role: ColumnRole) => !role.key && !role.distinct;

/** The literals of a hint that fit the column, as cell keys. */
function fittedKeys(role: ColumnRole, hint: ColumnHint): Set<string> {
  const out = new Set<string>();
  for (const v of hint.values) {
    const cell = fitValue(role.column, v);
    if (cell !== null) out.add(keyOf([cell]));
  }
  return out;
}

/** Rows whose value in a covering foreign-key column is shared with another row: moving one keeps the cover. */
function movable(drawn: Drawn, role: ColumnRole): number[] {
  const all = drawn.rows.map((_r, i) => i);
  if (!role.covering) return all;
  const count = new Map<string, number>();
  for (const r of drawn.rows)
    count.set(keyOf([r[role.index] ?? null]), (count.get(keyOf([r[role.index] ?? null])) ?? 0) + 1);
  return all.filter((i) => (count.get(keyOf([drawn.rows[i]![role.index] ?? null])) ?? 0) > 1);
}

/** The values of U.d in U's rows that hold one of the reference's equality literals (other than in d itself). */
function witnessValues(u: Drawn, d: ColumnRole, hints: readonly ColumnHint[]): Cell[] {
  const tests = hints
    .filter((h) => h.reference && h.equality && h.column !== lower(d.column.name))
    .flatMap((h) => {
      const role = u.roles.find((r) => lower(r.column.name) === h.column);
      return role ? [{ role, keys: fittedKeys(role, h) }] : [];
    });
  if (!tests.length) return [];
  const out = new Map<string, Cell>();
  for (const row of u.rows)
    if (tests.some((t) => t.keys.has(keyOf([row[t.role.index] ?? null])))) {
      const v = row[d.index] ?? null;
      if (v !== null) out.set(keyOf([v]), v);
    }
  return [...out.values()];
}

function witnessRows(rng: Rng, plan: NeighbourPlan, drawn: Drawn[]): void {
  for (const t of drawn) {
    if (!t.rows.length) continue;
    // Per column of T: the values that lead to a row of another table holding a reference literal. A column the
    // pass may not write (a key: flight_2's airline is part of its flights' key) instead chooses the rows.
    const leads: { role: ColumnRole; values: Cell[]; keys: Set<string> }[] = [];
    for (const role of t.roles) {
      const name = lower(role.column.name);
      const values = new Map<string, Cell>();
      for (const [a, b] of plan.joins) {
        const other = a === name ? b : b === name ? a : null;
        if (other === null) continue;
        for (const u of drawn) {
          if (u === t) continue;
          // A foreign key only takes keys of its own parent.
          if (role.fk && (lower(role.fk.table) !== lower(u.table.name) || lower(role.fk.column) !== other)) continue;
          const d = u.roles.find((r) => lower(r.column.name) === other);
          if (d) for (const v of witnessValues(u, d, plan.hints)) values.set(keyOf([v]), v);
        }
      }
      if (values.size) leads.push({ role, values: [...values.values()], keys: new Set(values.keys()) });
    }
    const written = leads.filter((l) => writable(l.role));
    if (!written.length) continue;
    const chosen = leads.filter((l) => !writable(l.role));
    let pool = t.rows.map((_r, i) => i);
    for (const l of written) {
      const ok = new Set(movable(t, l.role));
      pool = pool.filter((i) => ok.has(i));
    }
    const meeting = pool.filter((i) => chosen.every((l) => l.keys.has(keyOf([t.rows[i]![l.role.index] ?? null]))));
    if (meeting.length) pool = meeting;
    if (!pool.length) continue;
    // One or two rows of T take a lead value in every written column at once.
    for (let n = 1 + rng.int(2); n > 0; n--) {
      const row = t.rows[rng.pick(pool)]!;
      for (const l of written) {
        row[l.role.index] = rng.pick(l.values);
        t.changes.planted++;
      }
    }
  }
}

function justMissRows(rng: Rng, plan: NeighbourPlan, drawn: Drawn[]): void {
  const referenced = (u: Drawn): Set<number> => {
    // Rows of U whose key a row of another table points at through a declared foreign key.
    const out = new Set<number>();
    for (const child of drawn)
      for (const role of child.roles) {
        if (!role.fk || lower(role.fk.table) !== lower(u.table.name)) continue;
        const at = u.roles.find((r) => lower(r.column.name) === lower(role.fk!.column));
        if (!at) continue;
        const pointed = new Set(child.rows.map((r) => keyOf([r[role.index] ?? null])));
        u.rows.forEach((r, i) => pointed.has(keyOf([r[at.index] ?? null])) && out.add(i));
      }
    return out;
  };
  for (const u of drawn) {
    const hints = plan.hints.filter((h) => h.equality && u.roles.some((r) => lower(r.column.name) === h.column));
    if (!hints.length || !u.rows.length) continue;
    const pointed = referenced(u);
    for (const hint of hints) {
      const role = u.roles.find((r) => lower(r.column.name) === hint.column)!;
      if (!writable(role) || role.fk || role.covering) continue;
      const keys = fittedKeys(role, hint);
      const others = role.domain.filter((v) => v !== null && !keys.has(keyOf([v])));
      if (!keys.size || !others.length) continue;
      const holders = u.rows.flatMap((r, i) => (keys.has(keyOf([r[role.index] ?? null])) ? [i] : []));
      const preferred = holders.filter((i) => pointed.has(i));
      const pool = preferred.length ? preferred : holders;
      // Leave at least one holder: the literal still names rows.
      if (pool.length < (preferred.length ? 1 : 2) || holders.length < 2) continue;
      u.rows[rng.pick(pool)]![role.index] = rng.pick(others);
      u.changes.perturbed++;
    }
  }
}

function boundaryRows(rng: Rng, plan: NeighbourPlan, drawn: Drawn[]): void {
  for (const t of drawn) {
    if (!t.rows.length) continue;
    for (const hint of plan.hints) {
      if (!hint.bound) continue;
      const role = t.roles.find((r) => lower(r.column.name) === hint.column);
      if (!role || role.key || role.fk || role.covering || !NUMERIC.has(role.column.kind)) continue;
      // The row's other numeric columns the queries read get values no other row has (so distinct ones stay so).
      const own = t.roles.filter(
        (r) =>
          r !== role &&
          !r.key &&
          !r.fk &&
          !r.covering &&
          NUMERIC.has(r.column.kind) &&
          plan.mentioned.includes(lower(r.column.name)),
      );
      for (const v of hint.values) {
        const bound = fitValue(role.column, v);
        if (bound === null) continue;
        // A row that holds the bound already (v2 plants literals too) is the one; a distinct column keeps one.
        const holder = t.rows.find((r) => keyOf([r[role.index] ?? null]) === keyOf([bound]));
        const row = holder ?? t.rows[rng.int(t.rows.length)]!;
        if (!holder) {
          row[role.index] = bound;
          t.changes.planted++;
        }
        for (const r of own) {
          let max = 0;
          for (const other of t.rows) {
            const x = other[r.index];
            if (typeof x === 'number' && x > max) max = x;
          }
          row[r.index] = r.column.kind === 'integer' ? Math.floor(max) + 1 : max + 1;
          t.changes.perturbed++;
        }
      }
    }
  }
}

/** The three passes over a drawn neighbour (its rows are changed in place). */
export function targetedRows(snapshot: FixtureSnapshot, plan: NeighbourPlan, data: NeighbourData): void {
  const drawn: Drawn[] = snapshot.tables.map((table, i) => ({
    table,
    roles: rolesOf(snapshot, table, plan),
    rows: data.tables[i]!.rows,
    changes: data.changes[i]!,
  }));
  const stream = (name: string) => rngFrom(hashSeed(`${name}:${data.seed}`));
  const witness = stream('witness');
  if (witness.chance(0.75)) witnessRows(witness, plan, drawn);
  const miss = stream('just-miss');
  if (miss.chance(0.5)) justMissRows(miss, plan, drawn);
  const bound = stream('boundary');
  if (bound.chance(0.5)) boundaryRows(bound, plan, drawn);
}
