/**
 * DuckDB type names (as DESCRIBE prints them) parsed into a tree, so that a
 * nested column's element and field kinds come from DuckDB's own types
 * (a HUGEINT in a list is an integer, a UHUGEINT is not a blob) and so that
 * only the parts Arrow cannot carry exactly are cast to VARCHAR
 * (`INTERVAL[]` → `VARCHAR[]`, not the whole list to one string).
 */
import type { Column, Kind } from '../../core/value/kind.ts';

export interface DuckDbType {
  /** The node's own text as DuckDB prints it, e.g. `DECIMAL(18,2)`, `STRUCT(a INTEGER)[]`. */
  text: string;
  /** `list` (`T[]`), `array` (`T[n]`), `struct`, `map`, `union` or `scalar`. */
  shape: 'scalar' | 'list' | 'array' | 'struct' | 'map' | 'union';
  /** The base name of a scalar, upper case without arguments: `DECIMAL`, `TIMESTAMP WITH TIME ZONE`. */
  base: string;
  /** list/array: [element]; struct/union: fields; map: [key, value]. */
  children: { name: string; type: DuckDbType; unnamed?: true }[];
  /** array: the fixed size. */
  size?: number;
  /** struct: an unnamed struct (ROW(1, 'a')), its fields named by position "1", "2", … */
  unnamed?: true;
}

/** Scalar types whose Arrow form is lossy or unreadable here: cast to VARCHAR before Arrow. */
const TEXT_SCALARS =
  /^(INTERVAL|TIMESTAMP_NS|TIME_NS|TIMESTAMP WITH TIME ZONE_NS|TIME WITH TIME ZONE|TIMETZ|UUID|BIT|BITSTRING|ENUM|JSON|VARINT|BIGNUM|GEOMETRY)$/;

class Parser {
  private at = 0;
  constructor(private readonly src: string) {}

  fail(): never {
    throw new Error(`cannot read the DuckDB type ${JSON.stringify(this.src)} at ${this.at}`);
  }

  private peek(): string {
    return this.src[this.at] ?? '';
  }

  private skipSpace(): void {
    while (this.peek() === ' ') this.at++;
  }

  private expect(ch: string): void {
    this.skipSpace();
    if (this.peek() !== ch) this.fail();
    this.at++;
  }

  /** An identifier: `"quoted ""name"""` or a bare word. */
  private name(): string {
    this.skipSpace();
    if (this.peek() === '"') {
      let out = '';
      this.at++;
      for (;;) {
        const ch = this.src[this.at++];
        if (ch === undefined) this.fail();
        if (ch === '"') {
          if (this.peek() !== '"') return out;
          this.at++;
        }
        out += ch;
      }
    }
    const start = this.at;
    while (/[^\s,()[\]]/.test(this.peek())) this.at++;
    if (this.at === start) this.fail();
    return this.src.slice(start, this.at);
  }

  /** Balanced `( … )` taken verbatim (DECIMAL(18,2), ENUM('a', 'b''c')). */
  private rawArguments(): void {
    let depth = 0;
    let quote = false;
    do {
      const ch = this.src[this.at++];
      if (ch === undefined) this.fail();
      if (quote) {
        if (ch === "'") quote = false;
      } else if (ch === "'") quote = true;
      else if (ch === '(') depth++;
      else if (ch === ')') depth--;
    } while (depth > 0);
  }

  /**
   * One struct or union member: `name TYPE`, or an unnamed struct's `TYPE` alone (named by its position,
   * from 1). `INTEGER,` and `DECIMAL(18,2)` read as a name leave no type after them; `TIMESTAMP WITH TIME
   * ZONE` reads as a field named TIMESTAMP of type `WITH TIME ZONE`, which is no type.
   */
  private field(index: number): { name: string; type: DuckDbType; unnamed?: true } {
    const start = this.at;
    try {
      const name = this.name();
      const type = this.type();
      if (!/^WITH /.test(type.base)) return { name, type };
    } catch {
      // Not `name TYPE`: read again as a type alone.
    }
    this.at = start;
    return { name: String(index + 1), type: this.type(), unnamed: true };
  }

  type(): DuckDbType {
    this.skipSpace();
    const start = this.at;
    let node: DuckDbType;
    if (this.peek() === '"') {
      const base = this.name();
      node = { text: '', shape: 'scalar', base: base.toUpperCase(), children: [] };
    } else {
      while (/[^,()[\]]/.test(this.peek())) this.at++;
      const base = this.src.slice(start, this.at).trim().toUpperCase();
      if (!base) this.fail();
      node = { text: '', shape: 'scalar', base, children: [] };
      if (this.peek() === '(') {
        if (base === 'STRUCT' || base === 'UNION') {
          node.shape = base === 'STRUCT' ? 'struct' : 'union';
          this.at++;
          for (;;) {
            node.children.push(this.field(node.children.length));
            this.skipSpace();
            if (this.peek() === ',') this.at++;
            else break;
          }
          this.expect(')');
          // ROW(1, 'a') is an unnamed struct: DuckDB prints its fields' types alone. A struct is either.
          const unnamed = node.children.filter((c) => c.unnamed).length;
          if (unnamed === node.children.length && base === 'STRUCT') node.unnamed = true;
          else if (unnamed > 0) this.fail();
        } else if (base === 'MAP') {
          node.shape = 'map';
          this.at++;
          node.children.push({ name: 'key', type: this.type() });
          this.expect(',');
          node.children.push({ name: 'value', type: this.type() });
          this.expect(')');
        } else {
          this.rawArguments();
          // Trailing words after arguments (none in DuckDB 1.4, but keep them in the text).
          while (/[^,()[\]]/.test(this.peek())) this.at++;
        }
      }
    }
    node.text = this.src.slice(start, this.at).trim();
    while (this.peek() === '[') {
      const open = this.at;
      while (this.peek() !== ']') {
        if (this.peek() === '') this.fail();
        this.at++;
      }
      this.at++;
      const inside = this.src.slice(open + 1, this.at - 1).trim();
      const element = node;
      const text = this.src.slice(start, this.at).trim();
      if (inside === '') node = { text, shape: 'list', base: 'LIST', children: [{ name: 'element', type: element }] };
      else if (/^\d+$/.test(inside))
        node = {
          text,
          shape: 'array',
          base: 'ARRAY',
          children: [{ name: 'element', type: element }],
          size: Number(inside),
        };
      else this.fail();
    }
    return node;
  }

  done(): boolean {
    this.skipSpace();
    return this.at === this.src.length;
  }
}

/** Parse a DuckDB type name; null when it is not in the grammar DuckDB 1.4 prints. */
export function parseDuckDbType(text: string): DuckDbType | null {
  try {
    const parser = new Parser(text);
    const type = parser.type();
    return parser.done() ? type : null;
  } catch {
    return null;
  }
}

/** True when this node (not counting its children) must reach Arrow as VARCHAR. */
function castsWhole(type: DuckDbType): boolean {
  return type.shape === 'union' || (type.shape === 'scalar' && TEXT_SCALARS.test(type.base));
}

/**
 * Whether any part of the type must be cast before it reaches Arrow: to VARCHAR, or (an unnamed struct) to
 * the struct whose fields are named by position, so that ROW(1) and ROW('1') decode as an integer and a text
 * field, where DuckDB's text of both is `(1)`.
 */
export function needsCast(type: DuckDbType): boolean {
  return castsWhole(type) || type.unnamed === true || type.children.some((c) => needsCast(c.type));
}

const quoteName = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The type Arrow can carry exactly: every part that cannot becomes VARCHAR. */
export function arrowSafeType(type: DuckDbType): string {
  if (castsWhole(type)) return 'VARCHAR';
  switch (type.shape) {
    case 'list':
      return `${arrowSafeType(type.children[0]!.type)}[]`;
    case 'array':
      return `${arrowSafeType(type.children[0]!.type)}[${type.size}]`;
    case 'struct':
      return `STRUCT(${type.children.map((c) => `${quoteName(c.name)} ${arrowSafeType(c.type)}`).join(', ')})`;
    case 'map':
      return `MAP(${arrowSafeType(type.children[0]!.type)}, ${arrowSafeType(type.children[1]!.type)})`;
    default:
      return type.text;
  }
}

const INTEGER_BASES =
  /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|INT1|INT2|INT4|INT8|INT16|INT|LONG|SHORT)$/;

/** The portable kind of a type node; parts cast to VARCHAR are `interval` (INTERVAL) or `other`. */
export function kindOfType(type: DuckDbType): Kind {
  if (castsWhole(type)) {
    if (type.base === 'INTERVAL') return 'interval';
    // DuckDB's text of a TIMESTAMP_NS (TIME_NS) keeps its nanoseconds and is still a timestamp (a time):
    // as kind `other` it never equalled the same TIMESTAMP (TIME) or a DATE at midnight, and it equalled
    // a VARCHAR of that text.
    if (type.base === 'TIMESTAMP_NS') return 'timestamp';
    if (type.base === 'TIME_NS') return 'time';
    // A BIGNUM (VARINT) is an integer of any size; its text is its digits (decoded to a bigint): as
    // `other` it never equalled the same INTEGER and equalled a VARCHAR of its digits.
    if (type.base === 'BIGNUM' || type.base === 'VARINT') return 'integer';
    return 'other';
  }
  switch (type.shape) {
    case 'list':
    case 'array':
    case 'map':
      return 'list';
    case 'struct':
      return 'struct';
    default:
      break;
  }
  const t = type.base;
  if (INTEGER_BASES.test(t)) return 'integer';
  if (t === 'DECIMAL' || t === 'NUMERIC') return 'decimal';
  if (t === 'FLOAT' || t === 'DOUBLE' || t === 'REAL') return 'float';
  if (t === 'VARCHAR' || t === 'TEXT' || t === 'STRING') return 'text';
  if (t === 'BOOLEAN' || t === 'BOOL') return 'boolean';
  if (t === 'DATE') return 'date';
  if (t === 'TIMESTAMP WITH TIME ZONE' || t === 'TIMESTAMPTZ') return 'timestamptz';
  if (t.startsWith('TIMESTAMP') || t === 'DATETIME') return 'timestamp';
  if (t === 'TIME') return 'time';
  if (t === 'BLOB' || t === 'BYTEA') return 'blob';
  if (t === 'NULL') return 'null';
  return 'other';
}

/** The column description of a type: kind, and element/field columns for lists and structs. */
export function columnOfType(name: string, type: DuckDbType): Column {
  if (type.shape === 'union') return unionColumn(name, type.text);
  const kind = kindOfType(type);
  const column: Column = { name, engineType: type.text, kind };
  if (type.shape === 'map') {
    // A MAP is the list of its entries, in order, each a struct (key, value) as Arrow and DuckDB's
    // map_entries() give them: the keys and values compare by their own kinds (10.0 = 10.00 inside a
    // map, floats within tolerance), where DuckDB's text ('{a=10.0}') compared them as characters and
    // equalled a VARCHAR of the same text.
    const [key, value] = type.children.map((c) => columnOfType(c.name, c.type));
    column.children = [
      {
        name: 'entry',
        engineType: `STRUCT(key ${key!.engineType}, value ${value!.engineType})`,
        kind: 'struct',
        children: [key!, value!],
      },
    ];
    return column;
  }
  if (kind === 'list' || kind === 'struct') column.children = type.children.map((c) => columnOfType(c.name, c.type));
  return column;
}

/**
 * A UNION, at the top of a column or inside a list, struct or map, is read as the struct (tag, value): its
 * member's name and the value as DuckDB's text. Cast to VARCHAR alone, union_value(a := 1) and
 * union_value(b := '1') were both `1`, and equal (projectionOfType).
 */
function unionColumn(name: string, engineType: string): Column {
  return {
    name,
    engineType,
    kind: 'struct',
    children: [
      { name: 'tag', engineType: 'VARCHAR', kind: 'text' },
      { name: 'value', engineType: 'VARCHAR', kind: 'other' },
    ],
  };
}

/** The column DESCRIBE's type name stands for; an unreadable name is read as text (cast to VARCHAR). */
export function duckDbColumn(name: string, engineType: string): Column {
  const type = parseDuckDbType(engineType);
  if (!type) return { name, engineType, kind: 'other' };
  return { ...columnOfType(name, type), name, engineType };
}

/** The SQL type to cast a column to before Arrow, or null when Arrow carries it exactly as it is. */
export function arrowCastOf(engineType: string): string | null {
  const type = parseDuckDbType(engineType);
  if (!type) return 'VARCHAR';
  return needsCast(type) ? arrowSafeType(type) : null;
}

/**
 * The expression that hands the column at `ref` (`#1`) to Arrow exactly, or null when it needs nothing:
 * a cast (arrowCastOf), or for a UNION column the struct unionColumn describes.
 */
export function arrowProjectionOf(engineType: string, ref: string): string | null {
  const type = parseDuckDbType(engineType);
  return type ? projectionOfType(type, ref, 0) : `CAST(${ref} AS VARCHAR)`;
}

function hasUnion(type: DuckDbType): boolean {
  return type.shape === 'union' || type.children.some((c) => hasUnion(c.type));
}

/**
 * `expr` (a value of `type`) in the form Arrow carries exactly, or null when it is already. Without a UNION
 * inside, one cast does it (arrowSafeType). A UNION is rebuilt as the struct (tag, value) wherever it sits,
 * since no cast can keep its tag: through list_transform for list and array elements, field by field for a
 * struct (a NULL struct stays NULL), entry by entry for a map. `depth` keeps nested lambdas' names apart.
 */
function projectionOfType(type: DuckDbType, expr: string, depth: number): string | null {
  if (type.shape === 'union')
    return `CASE WHEN ${expr} IS NULL THEN NULL ELSE struct_pack("tag" := CAST(union_tag(${expr}) AS VARCHAR), "value" := CAST(${expr} AS VARCHAR)) END`;
  if (!hasUnion(type)) return needsCast(type) ? `CAST(${expr} AS ${arrowSafeType(type)})` : null;
  const x = `x${depth}`;
  const inner = (child: DuckDbType, at: string) => projectionOfType(child, at, depth + 1) ?? at;
  switch (type.shape) {
    case 'list':
    case 'array':
      return `list_transform(${expr}, lambda ${x}: ${inner(type.children[0]!.type, x)})`;
    case 'struct': {
      const fields = type.children.map(
        (c, i) => `${quoteName(c.name)} := ${inner(c.type, `struct_extract_at(${expr}, ${i + 1})`)}`,
      );
      return `CASE WHEN ${expr} IS NULL THEN NULL ELSE struct_pack(${fields.join(', ')}) END`;
    }
    case 'map': {
      const [key, value] = type.children;
      const entry = `struct_pack("key" := ${inner(key!.type, `${x}."key"`)}, "value" := ${inner(value!.type, `${x}."value"`)})`;
      return `map_from_entries(list_transform(map_entries(${expr}), lambda ${x}: ${entry}))`;
    }
    default:
      return null;
  }
}
