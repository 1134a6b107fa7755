/**
 * Does the reference's LIMIT cut through a tie on this database? The probes
 * are the golden lint's (corpus/lint.ts); this runs them on any engine, for
 * every evaluation and for every neighbour database.
 */
import { limitTieProbes, tieGroupWindow } from '../corpus/lint.ts';
import { canonicalCell } from '../digest/canonical-dump.ts';
import type { Engine, ExecuteOptions } from '../engine.ts';

export type LimitTieStatus =
  | { kind: 'no_limit' }
  | { kind: 'stable' }
  | { kind: 'tie'; limit: number; offset: number; keys: string }
  | { kind: 'unordered'; limit: number; offset: number; available: number }
  | { kind: 'unknown'; reason: string };

export async function limitTieStatus(
  engine: Engine,
  sql: string,
  outputColumns: readonly string[],
  options: ExecuteOptions = {},
): Promise<LimitTieStatus> {
  const probe = limitTieProbes(sql, outputColumns);
  if (probe.kind === 'none') return { kind: 'no_limit' };
  if (probe.kind === 'unreadable') return { kind: 'unknown', reason: probe.reason };
  if (probe.kind === 'unordered_limit') {
    const counted = await engine.execute(probe.countSql, options);
    if (!counted.ok) return { kind: 'unknown', reason: counted.error.message };
    const available = Number(counted.value.rows[0]?.[0] ?? 0);
    return available > probe.offset + probe.limit
      ? { kind: 'unordered', limit: probe.limit, offset: probe.offset, available }
      : { kind: 'stable' };
  }
  const errors: string[] = [];
  for (const [index, probeSql] of probe.probes.entries()) {
    const out = await engine.execute(probeSql, options);
    if (!out.ok) {
      errors.push(out.error.message);
      continue;
    }
    if (out.value.rows.length < 2) return { kind: 'stable' };
    const cols = out.value.columns;
    const keyText = (row: number) =>
      out.value.rows[row]!.slice(cols.length - probe.keyCount)
        .map((cell, i) => canonicalCell(cols[cols.length - probe.keyCount + i]!, cell))
        .join('\t');
    if (keyText(0) !== keyText(1)) return { kind: 'stable' };
    // Tied keys, but the tied rows may all be the same output row: then the cut changes nothing.
    const group = tieGroupWindow(probe, index);
    const around = await engine.execute(group.sql, options);
    if (around.ok && group.identical(around.value)) return { kind: 'stable' };
    return { kind: 'tie', limit: probe.limit, offset: probe.offset, keys: keyText(0) };
  }
  return { kind: 'unknown', reason: errors.join('; ') || 'no probe ran' };
}

export type NullOrderStatus =
  | { kind: 'independent' }
  | { kind: 'engine_null_order'; limit: number; offset: number; rows: number; nulls: number }
  | { kind: 'unknown'; reason: string };

/**
 * Does the reference's ordered LIMIT keep rows by where NULLs sort? Its first ORDER BY key holds NULLs
 * and other values, with no NULLS FIRST/LAST, and the LIMIT cuts: SQLite keeps the NULL rows first,
 * DuckDB last, so the answer is the engine's choice, not the query's (as a cut through a tie is).
 */
export async function nullOrderStatus(
  engine: Engine,
  sql: string,
  outputColumns: readonly string[],
  options: ExecuteOptions = {},
): Promise<NullOrderStatus> {
  const probe = limitTieProbes(sql, outputColumns);
  if (probe.kind !== 'ordered_limit' || !probe.nullProbes.length) return { kind: 'independent' };
  const errors: string[] = [];
  for (const probeSql of probe.nullProbes) {
    const out = await engine.execute(probeSql, options);
    if (!out.ok) {
      errors.push(out.error.message);
      continue;
    }
    const rows = Number(out.value.rows[0]?.[0] ?? 0);
    const nulls = rows - Number(out.value.rows[0]?.[1] ?? 0);
    const cuts = probe.offset > 0 || rows > probe.limit;
    return nulls > 0 && nulls < rows && cuts
      ? { kind: 'engine_null_order', limit: probe.limit, offset: probe.offset, rows, nulls }
      : { kind: 'independent' };
  }
  return { kind: 'unknown', reason: errors.join('; ') || 'no probe ran' };
}

/** The warning for an unstable LIMIT, or null. */
export function limitTieMessage(status: LimitTieStatus): string | null {
  if (status.kind === 'tie')
    return `The reference's LIMIT ${status.limit} cuts through rows whose ORDER BY keys tie ([${status.keys}] at rows ${status.offset + status.limit} and ${status.offset + status.limit + 1}): which rows it keeps is arbitrary, so this golden is unstable.`;
  if (status.kind === 'unordered')
    return `The reference's LIMIT ${status.limit} has no ORDER BY and keeps ${status.limit} of ${status.available} rows: which rows it keeps is arbitrary, so this golden is unstable.`;
  return null;
}
