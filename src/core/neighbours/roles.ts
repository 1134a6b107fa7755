/**
 * What each column of a fixture table is to the neighbour generator: a key, kept distinct, a foreign
 * key (and whether it covers its parent), nullable, its domain. Shared by the generator's passes
 * (generate.ts, witness.ts).
 */
import { floatToDecimalText } from '../value/decimal.ts';
import type { Cell } from '../value/kind.ts';
import type { HintValue, NeighbourPlan } from './plan.ts';
import type { FixtureSnapshot, SnapshotColumn, SnapshotTable } from './snapshot.ts';

export const keyOf = (cells: readonly Cell[]) =>
  cells
    .map((c) =>
      c === null
        ? '\u0000'
        : typeof c === 'object'
          ? JSON.stringify(c, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))
          : `${typeof c}:${String(c)}`,
    )
    .join('\u0001');

export function shiftDate(text: string, days: number): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})(.*)$/.exec(text);
  if (!m) return null;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  if (Number.isNaN(d.getTime())) return null;
  d.setUTCDate(d.getUTCDate() + days);
  return `${d.toISOString().slice(0, 10)}${m[4]}`;
}

/** A hint value as a cell of this column, or null when it does not fit its type. */
export function fitValue(column: SnapshotColumn, value: HintValue): Cell | null {
  switch (column.kind) {
    case 'integer': {
      const n = typeof value === 'number' ? value : Number(value);
      return Number.isSafeInteger(n) ? n : null;
    }
    case 'float': {
      const n = typeof value === 'number' ? value : Number(value);
      return Number.isFinite(n) ? n : null;
    }
    case 'decimal': {
      const n = typeof value === 'number' ? value : Number(value);
      return Number.isFinite(n) ? (floatToDecimalText(n) ?? String(n)) : null;
    }
    case 'text':
      return String(value);
    case 'date':
      return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) && shiftDate(value, 0) === value
        ? value
        : null;
    case 'timestamp':
      return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2}(\.\d+)?)?$/.test(value)
        ? value.length === 10
          ? `${value} 00:00:00`
          : value
        : null;
    case 'other':
      return value;
    default:
      return null;
  }
}

export interface ColumnRole {
  index: number;
  column: SnapshotColumn;
  key: boolean;
  /** Unique in the fixture (declared or in practice): kept distinct. */
  distinct: boolean;
  fk: { table: string; column: string } | null;
  mayNull: boolean;
  domain: Cell[];
  hasNull: boolean;
  /** Every parent key is referenced through this foreign-key column in the fixture. */
  covering: boolean;
}

export function rolesOf(snapshot: FixtureSnapshot, table: SnapshotTable, plan: NeighbourPlan): ColumnRole[] {
  const lower = (s: string) => s.toLowerCase();
  const pk = new Set(table.primaryKey.map(lower));
  const singleUnique = new Set(table.uniques.filter((u) => u.length === 1).map((u) => lower(u[0]!)));
  const referenced = new Set<string>();
  for (const other of snapshot.tables)
    for (const fk of other.foreignKeys)
      if (lower(fk.table) === lower(table.name)) for (const c of fk.refColumns) referenced.add(lower(c));
  const nullTested = new Set(plan.nullColumns);
  return table.columns.map((column, index) => {
    const name = lower(column.name);
    const values = table.rows.map((r) => r[index] ?? null);
    const nonNull = values.filter((v) => v !== null);
    const distinctValues = new Map(nonNull.map((v) => [keyOf([v]), v]));
    const fkIndex = table.foreignKeys.findIndex((f) => f.columns.some((c) => lower(c) === name));
    const fk =
      fkIndex >= 0
        ? {
            table: table.foreignKeys[fkIndex]!.table,
            column:
              table.foreignKeys[fkIndex]!.refColumns[
                table.foreignKeys[fkIndex]!.columns.findIndex((c) => lower(c) === name)
              ]!,
          }
        : null;
    const key =
      pk.has(name) ||
      singleUnique.has(name) ||
      referenced.has(name) ||
      table.uniques.some((u) => u.some((c) => lower(c) === name));
    const hasNull = nonNull.length < values.length;
    let covering = false;
    if (fk) {
      const parent = snapshot.tables.find((t) => lower(t.name) === lower(fk.table));
      const at = parent?.columns.findIndex((c) => lower(c.name) === lower(fk.column)) ?? -1;
      if (parent && at >= 0 && parent.rows.length > 0)
        covering = parent.rows.every((r) => distinctValues.has(keyOf([r[at] ?? null])));
    }
    return {
      covering,
      index,
      column,
      key,
      distinct:
        key ||
        (nonNull.length >= 3 &&
          distinctValues.size === nonNull.length &&
          (column.kind === 'text' || column.kind === 'integer' || column.kind === 'other')),
      fk,
      mayNull: !column.notNull && !pk.has(name) && (hasNull || nullTested.has(name)),
      domain: [...distinctValues.values()],
      hasNull,
    };
  });
}

/** A fresh value for a distinct column: beyond the integers it holds, or a suffixed text. */
export function freshValue(role: ColumnRole, used: Set<string>, counter: { n: number }): Cell | null {
  const sample = role.domain.find((v) => v !== null);
  if (sample === undefined || typeof sample === 'number' || typeof sample === 'bigint') {
    if (role.column.kind !== 'integer' && role.column.kind !== 'other' && sample === undefined) return null;
    let max = 0;
    for (const v of role.domain) if (typeof v === 'number' && v > max) max = v;
    let candidate = Math.floor(max) + 1 + counter.n++;
    while (used.has(keyOf([candidate]))) candidate++;
    return candidate;
  }
  // Numbers kept as text (Spider's `teacher.Age`): a fresh value is a number too, not "32 2", which
  // CAST(… AS INTEGER) would read as 32 again.
  if (typeof sample === 'string' && role.domain.every((v) => typeof v === 'string' && /^-?\d+$/.test(v))) {
    let max = 0;
    for (const v of role.domain) max = Math.max(max, Number(v));
    let candidate = String(max + 1 + counter.n++);
    while (used.has(keyOf([candidate]))) candidate = String(max + 1 + counter.n++);
    return candidate;
  }
  if (typeof sample === 'string' && (role.column.kind === 'text' || role.column.kind === 'other')) {
    let candidate = `${sample} ${2 + counter.n++}`;
    while (used.has(keyOf([candidate]))) candidate = `${sample} ${2 + counter.n++}`;
    return candidate;
  }
  return null;
}
