/**
 * PostgreSQL records and composites (`ROW(1, 'a')`, `(a, b)`, a whole-row reference `SELECT c FROM customers c`)
 * read as structs. Their text, `(1,a)`, is the same for ROW(1, 'a') and ROW('1', 'a'), and keeps a decimal's
 * scale (`(2.50)` is not `(2.5)`), where DuckDB's ROW(…) compares field by field, by kind. An anonymous record's
 * field types cannot be asked for in SQL, so the session runs such a query again with those columns through
 * `to_json` (recordProjection): its numbers, strings, booleans, nulls, arrays and objects tell 1 from '1', and
 * its numbers are read exactly here (an integer, or decimal text of the digits PostgreSQL printed). What JSON
 * cannot tell stays text: a date or an interval inside a record is its JSON string.
 *
 * An anonymous record's fields are f1, f2, … in JSON; they are named "1", "2", … as DuckDB names an unnamed
 * struct's fields, so the same ROW reads the same on both engines.
 */
import { setField, type Cell, type Column } from '../../core/value/kind.ts';
import { decimalFromUnscaled } from '../../core/value/decimal.ts';
import type { PgField } from './driver.ts';
import type { TypeCatalog } from './types.ts';

/** A JSON value with its numbers as the text PostgreSQL printed and its objects' keys in order. */
export type Json = null | boolean | string | { number: string } | Json[] | { entries: [string, Json][] };

/** Whether a result column of this type is a record or composite, or an array of them. */
export function isRecordType(oid: number, catalog: TypeCatalog): boolean {
  const type = catalog.get(oid);
  if (!type) return false;
  if (type.name === 'record' || type.category === 'C') return true;
  return type.elem !== 0 && type.elem !== oid && isRecordType(type.elem, catalog);
}

/**
 * The query again, its record columns as JSON text: `SELECT q."1", to_json(q."2")::text FROM (…) AS q("1", "2")`.
 * The columns are renamed by position (a result may repeat a name); the caller keeps the original names. The
 * text goes inside parentheses: a final semicolon is dropped, and a line break ends a final `--` comment.
 */
export function recordProjection(sql: string, fields: readonly PgField[], records: ReadonlySet<number>): string {
  const names = fields.map((_, i) => `"${i + 1}"`);
  const list = names.map((name, i) => (records.has(i) ? `to_json(q.${name})::text` : `q.${name}`));
  return `SELECT ${list.join(', ')} FROM (${sql.replace(/;\s*$/, '')}\n) AS q(${names.join(', ')})`;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const STRING = /"(?:[^"\\]|\\.)*"/y;
const BLANKS = /[ \t\n\r]*/y;

/** PostgreSQL's JSON text, numbers kept as printed. Throws on anything else. */
export function parseJson(text: string): Json {
  let at = 0;
  const skip = () => {
    BLANKS.lastIndex = at;
    BLANKS.exec(text);
    at = BLANKS.lastIndex;
  };
  const take = (pattern: RegExp): string => {
    pattern.lastIndex = at;
    const match = pattern.exec(text);
    if (!match) throw new SyntaxError(`unexpected JSON at ${at}`);
    at = pattern.lastIndex;
    return match[0];
  };
  const value = (): Json => {
    skip();
    const ch = text[at];
    if (ch === '"') return JSON.parse(take(STRING)) as string;
    if (ch === '[') {
      at++;
      const items: Json[] = [];
      skip();
      if (text[at] === ']') return (at++, items);
      for (;;) {
        items.push(value());
        skip();
        if (text[at++] === ']') return items;
        if (text[at - 1] !== ',') throw new SyntaxError(`unexpected JSON at ${at - 1}`);
      }
    }
    if (ch === '{') {
      at++;
      const entries: [string, Json][] = [];
      skip();
      if (text[at] === '}') return (at++, { entries });
      for (;;) {
        skip();
        const key = JSON.parse(take(STRING)) as string;
        skip();
        if (text[at++] !== ':') throw new SyntaxError(`unexpected JSON at ${at - 1}`);
        entries.push([key, value()]);
        skip();
        if (text[at++] === '}') return { entries: positional(entries) };
        if (text[at - 1] !== ',') throw new SyntaxError(`unexpected JSON at ${at - 1}`);
      }
    }
    for (const [word, literal] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const)
      if (text.startsWith(word, at)) return ((at += word.length), literal);
    return { number: take(NUMBER) };
  };
  const out = value();
  skip();
  if (at !== text.length) throw new SyntaxError(`unexpected JSON at ${at}`);
  return out;
}

/** An anonymous record's f1, f2, … named "1", "2", … (DuckDB's names for an unnamed struct's fields). */
function positional(entries: [string, Json][]): [string, Json][] {
  return entries.every(([key], i) => key === `f${i + 1}`) ? entries.map(([, v], i) => [String(i + 1), v]) : entries;
}

const isNumber = (v: Json): v is { number: string } => typeof v === 'object' && v !== null && 'number' in v;

/** The column one value says; kind `null` where it cannot tell (a NULL, an empty array). */
function shapeOf(name: string, v: Json): Column {
  if (v === null) return { name, engineType: 'unknown', kind: 'null' };
  if (typeof v === 'boolean') return { name, engineType: 'boolean', kind: 'boolean' };
  if (typeof v === 'string') return { name, engineType: 'text', kind: 'text' };
  if (isNumber(v))
    return /^-?\d+$/.test(v.number)
      ? { name, engineType: 'bigint', kind: 'integer' }
      : { name, engineType: 'numeric', kind: 'decimal' };
  if (Array.isArray(v)) {
    let element: Column | null = { name: 'element', engineType: 'unknown', kind: 'null' };
    for (const item of v) element = element && unify(element, shapeOf('element', item));
    if (!element) return { name, engineType: 'json', kind: 'other' };
    return { name, engineType: `${element.engineType}[]`, kind: 'list', children: [element] };
  }
  return {
    name,
    engineType: 'record',
    kind: 'struct',
    children: v.entries.map(([key, value]) => shapeOf(key, value)),
  };
}

/** One column for two values' shapes, or null when no kind holds both (then the column stays text). */
function unify(a: Column, b: Column): Column | null {
  if (a.kind === 'other' || b.kind === 'other') return null;
  if (a.kind === 'null') return { ...b, name: a.name };
  if (b.kind === 'null') return a;
  if (a.kind !== b.kind) {
    const numbers = new Set([a.kind, b.kind]);
    return numbers.has('integer') && numbers.has('decimal')
      ? { name: a.name, engineType: 'numeric', kind: 'decimal' }
      : null;
  }
  if (a.kind === 'list') {
    const element = unify(a.children![0]!, b.children![0]!);
    return element && { ...a, engineType: `${element.engineType}[]`, children: [element] };
  }
  if (a.kind === 'struct') {
    const [x, y] = [a.children!, b.children!];
    if (x.length !== y.length || x.some((c, i) => c.name !== y[i]!.name)) return null;
    const fields = x.map((c, i) => unify(c, y[i]!));
    return fields.every((f) => f !== null) ? { ...a, children: fields as Column[] } : null;
  }
  return a;
}

/** Decimal text of a JSON number as printed, its scale kept: 2.50 → "2.50", 1e+20 → "100000000000000000000". */
function decimalOf(number: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(number)!;
  const fraction = m[3] ?? '';
  const digits = BigInt(`${m[1]}${m[2]}${fraction}`);
  return decimalFromUnscaled(digits, fraction.length - Number(m[4] ?? 0));
}

function cellOfJson(v: Json, column: Column): Cell {
  if (v === null) return null;
  switch (column.kind) {
    case 'integer': {
      const n = BigInt((v as { number: string }).number);
      return n >= -9007199254740991n && n <= 9007199254740991n ? Number(n) : n;
    }
    case 'decimal':
      return decimalOf((v as { number: string }).number);
    case 'list':
      return (v as Json[]).map((item) => cellOfJson(item, column.children![0]!));
    case 'struct': {
      const out: { [field: string]: Cell } = {};
      (v as { entries: [string, Json][] }).entries.forEach(([key, value], i) =>
        setField(out, key, cellOfJson(value, column.children![i]!)),
      );
      return out;
    }
    default:
      return v as Cell;
  }
}

/**
 * A record column from its values' JSON texts: the column every value fits (a struct, or a list of them), and
 * the decoded cells; null when no one column holds them all (the caller keeps the texts, kind other).
 */
export function recordColumn(
  name: string,
  engineType: string,
  texts: readonly (string | null)[],
): { column: Column; cells: Cell[] } | null {
  let values: Json[];
  try {
    values = texts.map((text) => (text === null ? null : parseJson(text)));
  } catch {
    return null;
  }
  let column: Column | null = { name, engineType, kind: 'null' };
  for (const v of values) column = column && unify(column, shapeOf(name, v));
  if (!column || column.kind === 'null') return null;
  const named = { ...column, name, engineType };
  return { column: named, cells: values.map((v) => cellOfJson(v, named)) };
}
