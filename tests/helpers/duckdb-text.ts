/**
 * DuckDB's own text of a value (what its sqllogictest runner prints), from a
 * cell of the exact value model and its column. Test helper only: it lets
 * the conformance test compare every cell with DuckDB's expected text.
 *
 * Where the value model's text differs from DuckDB's while the value is the
 * same, the conversion is a named rule, counted in `notes` (see
 * docs/conformance.md): REAL widened to a double, DECIMAL(w,w) without the
 * leading zero, years outside 1–9999, float spelling.
 */
import type { Cell, Column } from '../../src/core/value/kind.ts';
import { parseDuckDbType } from '../../src/engines/duckdb/types.ts';

export type Note = 'real_widened' | 'decimal_no_leading_zero' | 'year_bc' | 'year_above_9999' | 'blob_escapes';

export type Notes = Map<Note, number>;

const note = (notes: Notes, what: Note) => notes.set(what, (notes.get(what) ?? 0) + 1);

/** Shortest digits that read back as the same float32 (DuckDB prints a REAL from its 32-bit value). */
function float32Text(value: number): string {
  for (let p = 1; p <= 9; p++) {
    const text = value.toPrecision(p);
    if (Math.fround(Number(text)) === value) return String(Number(text));
  }
  return String(value);
}

/** A double as DuckDB prints it: shortest round-trip digits, `e+NN` exponents, `.0` on whole numbers. */
export function duckDbFloat(value: number, real: boolean): string {
  if (Number.isNaN(value)) return 'nan';
  if (value === Infinity) return 'inf';
  if (value === -Infinity) return '-inf';
  if (Object.is(value, -0)) return '-0.0';
  const shortest = real ? float32Text(value) : String(value);
  const [mantissa, exp] = Number(shortest).toExponential().split('e') as [string, string];
  const e = Number(exp);
  if (e < -4 || e >= 16) {
    const sign = e < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  const sign = mantissa.startsWith('-') ? '-' : '';
  const digits = mantissa.replace(/^-|\./g, '');
  if (e >= digits.length - 1) return `${sign}${digits}${'0'.repeat(e - digits.length + 1)}.0`;
  if (e >= 0) return `${sign}${digits.slice(0, e + 1)}.${digits.slice(e + 1)}`;
  return `${sign}0.${'0'.repeat(-e - 1)}${digits}`;
}

/** Astronomical years (0 = 1 BC, −1 = 2 BC) and years above 9999 as DuckDB writes them. */
function duckDbDateText(text: string, notes: Notes): string {
  const m = /^([+-])(\d{6,7})(-\d{2}-\d{2})(.*)$/.exec(text) ?? /^()(0000)(-\d{2}-\d{2})(.*)$/.exec(text);
  if (!m) return text;
  const year = (m[1] === '-' ? -1 : 1) * Number(m[2]);
  if (year <= 0) {
    note(notes, 'year_bc');
    return `${String(1 - year).padStart(4, '0')}${m[3]} (BC)${m[4]}`;
  }
  note(notes, 'year_above_9999');
  return `${year}${m[3]}${m[4]}`;
}

function duckDbDecimal(text: string, engineType: string, notes: Notes): string {
  const m = /^DECIMAL\((\d+),\s*(\d+)\)$/i.exec(engineType);
  if (m && m[1] === m[2]) {
    // DECIMAL(w,w) has no integer digit: DuckDB prints .500 where the value model keeps 0.500.
    const stripped = text.replace(/^(-?)0\./, '$1.');
    if (stripped !== text) note(notes, 'decimal_no_leading_zero');
    return stripped;
  }
  return text;
}

/** A blob as DuckDB prints it: printable ASCII as itself, every other byte as \xHH. */
function duckDbBlob(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) {
    const regular = b >= 32 && b <= 126 && b !== 92 && b !== 39 && b !== 34;
    out += regular ? String.fromCharCode(b) : `\\x${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** A string inside a list or struct: quoted when it would otherwise read differently. */
function nestedString(text: string): string {
  const needsQuotes = text === '' || /^null$/i.test(text) || /[,[\]{}()'"\\:=]/.test(text) || /^\s|\s$/.test(text);
  if (!needsQuotes) return text;
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

const OTHER: Column = { name: '', engineType: '', kind: 'other' };

/** DuckDB's text of one cell of `column` (top level: `nested` false). */
export function duckDbText(column: Column, cell: Cell, notes: Notes, nested = false): string {
  if (cell === null) return 'NULL';
  // The runner prints an empty top-level value as (empty).
  if (!nested && (cell === '' || (cell instanceof Uint8Array && cell.length === 0))) return '(empty)';
  switch (column.kind) {
    case 'integer':
      return String(cell);
    case 'decimal':
      return duckDbDecimal(String(cell), column.engineType, notes);
    case 'float': {
      const real = /^(REAL|FLOAT|FLOAT4)$/i.test(column.engineType);
      const text = duckDbFloat(cell as number, real);
      if (real && float32Text(cell as number) !== String(cell)) note(notes, 'real_widened');
      return text;
    }
    case 'boolean':
      return cell ? 'true' : 'false';
    case 'date':
    case 'timestamp':
    case 'timestamptz':
      return duckDbDateText(String(cell), notes);
    case 'blob':
      note(notes, 'blob_escapes');
      return duckDbBlob(cell as Uint8Array);
    case 'list': {
      const element = column.children?.[0] ?? OTHER;
      if (/^MAP\(/i.test(column.engineType) && column.engineType.endsWith(')')) {
        // A MAP is the list of its {key, value} entries; DuckDB prints {k=v, ...}.
        const [key, value] = element.children ?? [OTHER, OTHER];
        const entries = (cell as { key: Cell; value: Cell }[]).map(
          (e) => `${duckDbText(key ?? OTHER, e.key, notes, true)}=${duckDbText(value ?? OTHER, e.value, notes, true)}`,
        );
        return `{${entries.join(', ')}}`;
      }
      return `[${(cell as Cell[]).map((c) => duckDbText(element, c, notes, true)).join(', ')}]`;
    }
    case 'struct': {
      const fields = new Map((column.children ?? []).map((c) => [c.name, c]));
      const record = cell as { [k: string]: Cell };
      // A UNION column is read as (tag, value); DuckDB prints the value alone.
      if (/^UNION\(/i.test(column.engineType))
        return duckDbText(fields.get('value') ?? OTHER, record.value ?? null, notes, nested);
      // An unnamed struct (ROW(…)): its fields by position, as DuckDB prints them: (a, b).
      if (parseDuckDbType(column.engineType)?.unnamed)
        return `(${Object.entries(record)
          .map(([k, v]) => duckDbText(fields.get(k) ?? OTHER, v, notes, true))
          .join(', ')})`;
      const parts = Object.entries(record).map(
        ([k, v]) => `'${k.replace(/'/g, "\\'")}': ${duckDbText(fields.get(k) ?? OTHER, v, notes, true)}`,
      );
      return `{${parts.join(', ')}}`;
    }
    case 'text':
      return nested ? nestedString(cell as string) : (cell as string);
    default:
      // interval, time, other (DuckDB's own VARCHAR text: unions, enums, TIME_NS, ...).
      if (typeof cell === 'string')
        return nested && column.kind === 'other' && /ENUM/i.test(column.engineType) ? nestedString(cell) : cell;
      return String(cell);
  }
}
