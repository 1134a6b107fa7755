/**
 * What a decoded result holds in memory, as the result byte budget counts it
 * (ExecuteOptions.maxResultBytes): every cell 8 bytes (its slot), text 2 bytes
 * per UTF-16 code unit (a JS string), a blob its length, a big integer 8 more,
 * a list or struct the sum of its parts (struct field names included). An
 * estimate of the heap a result takes, the same on both engines, cheap enough
 * to count row by row as rows stream out of the engine.
 */
import type { Cell } from './kind.ts';

export function cellBytes(cell: Cell): number {
  if (cell === null || typeof cell === 'boolean' || typeof cell === 'number') return 8;
  if (typeof cell === 'string') return 8 + 2 * cell.length;
  if (typeof cell === 'bigint') return 16;
  if (cell instanceof Uint8Array) return 8 + cell.byteLength;
  if (Array.isArray(cell)) {
    let total = 8;
    for (const item of cell) total += cellBytes(item);
    return total;
  }
  let total = 8;
  for (const [field, value] of Object.entries(cell)) total += 2 * field.length + cellBytes(value);
  return total;
}

export function rowBytes(row: readonly Cell[]): number {
  let total = 8;
  for (const cell of row) total += cellBytes(cell);
  return total;
}

/** "256 MiB", "1.5 GiB", "512 KiB", "100 bytes": a budget as people read it. */
export function formatBytes(bytes: number): string {
  const units = ['GiB', 'MiB', 'KiB'] as const;
  for (const [i, unit] of units.entries()) {
    const size = 1024 ** (3 - i);
    if (bytes >= size) {
      const value = bytes / size;
      return `${Number.isInteger(value) ? value : value.toFixed(1)} ${unit}`;
    }
  }
  return `${bytes} bytes`;
}
