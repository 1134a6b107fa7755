/**
 * The rows of a SQL dump's plain `INSERT INTO t VALUES (…), …` statements, for a bulk load.
 *
 * DuckDB plans every constant of a VALUES list: a dump of a few thousand rows takes ~75 µs a row natively
 * and more in DuckDB-WASM (the built-in retail fixture: 0.3 s native, 0.6 s WASM), while the same rows read
 * from a CSV of VARCHAR columns and inserted with `INSERT INTO t SELECT …` take a few milliseconds. The
 * engine still converts every value, with the same cast as the SQL would (a string literal is a VARCHAR
 * cast to the column's type); only the pairs of literal and column type where that is provably the same
 * value are staged (see {@link stageRows}), every other statement runs as written. Pure: the engine
 * session decides how to run the plan, and falls back to the dump as written on any error.
 */
/** What one column of an INSERT's rows holds, read as the rows are staged. */
export interface StagedColumn {
  /** The column's non-NULL literals: all strings, all numbers, or none. */
  kind: 'string' | 'number' | 'null';
  /** Number literals: the most digits before the point (leading zeros aside) and after it. */
  integral: number;
  fraction: number;
  /** A number literal that is a minus zero (`-0`, `-0.00`). */
  minusZero: boolean;
  /** A string literal with a NUL character. */
  nul: boolean;
  /** A NULL. */
  nulls: boolean;
}

export type DumpStatement =
  /** A statement to run as written. */
  | { kind: 'sql'; text: string }
  /**
   * `INSERT INTO <table> VALUES …` of literals only, its rows already staged: `table` as written (quotes
   * included), `text` the statement, `csv` one line per row of quoted fields (a number as written, sign
   * included; NULL an empty unquoted field), `columns` what each column holds. A statement that mixes
   * strings and numbers in a column is not read as rows (the SQL would give them a common type first).
   */
  | { kind: 'rows'; table: string; text: string; csv: string; rowCount: number; columns: StagedColumn[] };

/** First words of statements a dump may hold for a bulk load; anything else (transactions, settings, COPY…) loads as written. */
const DUMP_VERBS = /^(?:CREATE|INSERT|ALTER|UPDATE|DELETE|DROP|COMMENT)\b/i;

const QUOTE = 39;
const DQUOTE = 34;
const SEMICOLON = 59;
const DASH = 45;

/**
 * The dump's statements, INSERTs of literals read into rows; null when the text is not a plain dump (a block
 * comment, a dollar sign, a backtick, a prefixed string such as E'…', an unterminated quote, a statement that
 * is not DDL or DML), so that it is loaded as written. One pass over the characters: a dump is mostly rows.
 */
export function readDump(text: string): DumpStatement[] | null {
  const out: DumpStatement[] = [];
  const special = /[;'"`$/-]/g;
  let start = 0;
  for (;;) {
    const found = special.exec(text);
    const i = found ? found.index : text.length;
    const code = found ? text.charCodeAt(i) : SEMICOLON;
    if (code === QUOTE || code === DQUOTE) {
      if (code === QUOTE && i > 0 && isWordChar(text.charCodeAt(i - 1))) return null; // E'…', X'…', U&'…'
      const end = quoteEnd(text, i);
      if (end < 0) return null;
      special.lastIndex = end;
    } else if (code === DASH) {
      if (text.charCodeAt(i + 1) !== DASH) continue;
      const eol = text.indexOf('\n', i);
      special.lastIndex = eol < 0 ? text.length : eol + 1;
    } else if (code === 47 /* / */) {
      if (text.charCodeAt(i + 1) === 42 /* * */) return null;
    } else if (code !== SEMICOLON)
      return null; // $ or `
    else {
      const from = skipBlank(text, start, i);
      if (from < i) {
        const sql = text.slice(from, i).trimEnd();
        if (!DUMP_VERBS.test(sql)) return null;
        out.push(insertRows(sql) ?? { kind: 'sql', text: sql });
      }
      if (!found) return out;
      start = i + 1;
    }
  }
}

function isWordChar(code: number): boolean {
  return (
    (code >= 48 && code <= 57) ||
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    code === 95 ||
    code === 38
  );
}

/** Just past the quote that closes the one at `i` (a doubled quote stands for itself); -1 when unterminated. */
function quoteEnd(text: string, i: number): number {
  const q = text[i]!;
  let j = i + 1;
  for (;;) {
    const k = text.indexOf(q, j);
    if (k < 0) return -1;
    if (text[k + 1] !== q) return k + 1;
    j = k + 2;
  }
}

/** The first offset from `i` (before `end`) that is not whitespace or a line comment. */
function skipBlank(text: string, i: number, end: number): number {
  while (i < end) {
    const code = text.charCodeAt(i);
    if (code === 32 || (code >= 9 && code <= 13)) i++;
    else if (code === DASH && text.charCodeAt(i + 1) === DASH) {
      const eol = text.indexOf('\n', i);
      i = eol < 0 || eol > end ? end : eol + 1;
    } else break;
  }
  return i;
}

const INSERT_HEAD = /INSERT\s+INTO\s+("(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_]*)\s+VALUES\s*/iy;

/** Where the literal stageLiteral last read ends (no object per literal: a dump has tens of thousands). */
let literalEnd = 0;

/** The rows of `INSERT INTO <name> VALUES (<literal>, …), …`, staged as CSV; null for any other statement. */
function insertRows(sql: string): DumpStatement | null {
  INSERT_HEAD.lastIndex = 0;
  const head = INSERT_HEAD.exec(sql);
  if (!head) return null;
  const columns: StagedColumn[] = [];
  let csv = '';
  let rowCount = 0;
  let i = head[0].length;
  for (;;) {
    if (sql.charCodeAt(i) !== 40 /* ( */) return null;
    i++;
    let c = 0;
    for (; ; c++) {
      if (rowCount === 0)
        columns.push({ kind: 'null', integral: 0, fraction: 0, minusZero: false, nul: false, nulls: false });
      const column = columns[c];
      if (!column) return null;
      const field = stageLiteral(sql, skipBlank(sql, i, sql.length), column);
      if (field === undefined) return null;
      csv += c === 0 ? field : `,${field}`;
      i = skipBlank(sql, literalEnd, sql.length);
      const after = sql.charCodeAt(i++);
      if (after === 41 /* ) */) break;
      if (after !== 44 /* , */) return null;
    }
    if (c + 1 !== columns.length) return null;
    csv += '\n';
    rowCount++;
    i = skipBlank(sql, i, sql.length);
    if (i === sql.length) return { kind: 'rows', table: head[1]!, text: sql, csv, rowCount, columns };
    if (sql.charCodeAt(i) !== 44 /* , */) return null;
    i = skipBlank(sql, i + 1, sql.length);
  }
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/**
 * The literal at `i` as a CSV field, noted in its column: a string quoted, a number as written, NULL an
 * empty field; undefined for anything else, or a string in a column of numbers (or the reverse). Sets
 * literalEnd.
 */
function stageLiteral(sql: string, i: number, column: StagedColumn): string | undefined {
  const code = sql.charCodeAt(i);
  if (code === QUOTE) {
    const end = quoteEnd(sql, i);
    if (end < 0 || column.kind === 'number') return undefined;
    column.kind = 'string';
    literalEnd = end;
    let text = sql.slice(i + 1, end - 1);
    if (text.includes("'")) text = text.replace(/''/g, "'");
    if (text.includes('\0')) column.nul = true;
    return text.includes('"') ? `"${text.replace(/"/g, '""')}"` : `"${text}"`;
  }
  if (
    (code | 32) === 110 /* n */ &&
    sql.slice(i, i + 4).toUpperCase() === 'NULL' &&
    !isWordChar(sql.charCodeAt(i + 4))
  ) {
    literalEnd = i + 4;
    column.nulls = true;
    return '';
  }
  // -?digits(.digits)?, not followed by a word character, a point or $ (1e5, 1., 1.2.3 are not plain numbers)
  if (column.kind === 'string') return undefined;
  let j = code === DASH ? skipBlank(sql, i + 1, sql.length) : i;
  const digits = j;
  while (isDigit(sql.charCodeAt(j))) j++;
  const integralEnd = j;
  if (j === digits) return undefined;
  let fraction = 0;
  if (sql.charCodeAt(j) === 46 /* . */) {
    const from = ++j;
    while (isDigit(sql.charCodeAt(j))) j++;
    fraction = j - from;
    if (fraction === 0) return undefined;
  }
  const next = sql.charCodeAt(j);
  if (isWordChar(next) || next === 46 || next === 36) return undefined;
  let lead = digits;
  while (lead < integralEnd && sql.charCodeAt(lead) === 48 /* 0 */) lead++;
  column.kind = 'number';
  column.integral = Math.max(column.integral, integralEnd - lead);
  column.fraction = Math.max(column.fraction, fraction);
  const number = sql.slice(digits, j);
  literalEnd = j;
  if (code !== DASH) return number;
  if (lead === integralEnd && /^[0.]*$/.test(number)) column.minusZero = true;
  return `-${number}`;
}

/** What a column of this engine type may receive as staged VARCHAR text and still hold the SQL's value. */
type Target =
  | { numbers: 'none' }
  | { numbers: 'integer' }
  | { numbers: 'double' }
  | { numbers: 'decimal'; precision: number; scale: number };

const INTEGER_TYPES = /^(?:TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT)$/;
const STRING_ONLY_TYPES =
  /^(?:VARCHAR|DATE|TIME|TIMESTAMP|TIMESTAMP WITH TIME ZONE|TIMESTAMP_S|TIMESTAMP_MS|TIMESTAMP_NS|INTERVAL|UUID|BOOLEAN|BLOB|FLOAT|REAL)$/;

function targetOf(engineType: string): Target | null {
  const type = engineType.trim().toUpperCase();
  if (STRING_ONLY_TYPES.test(type)) return { numbers: 'none' };
  if (INTEGER_TYPES.test(type)) return { numbers: 'integer' };
  if (type === 'DOUBLE') return { numbers: 'double' };
  const decimal = /^DECIMAL\((\d+),\s*(\d+)\)$/.exec(type);
  if (decimal) return { numbers: 'decimal', precision: Number(decimal[1]), scale: Number(decimal[2]) };
  return null;
}

/**
 * Whether the column's number literals, staged as text and cast to the column, are the values the SQL
 * literals would be. The SQL first gives the column's literals a common type (DECIMAL(w,s) covering them
 * all), then casts it to the column. Integer literals alone are exact in an integer or DECIMAL column. A
 * DECIMAL(p,s) column takes literals of at most s fractional and p - s integral digits (no rounding on either
 * side; anything wider fails both ways). A DOUBLE column takes them while the common type has at most 15
 * digits: the SQL then divides an integer exact in a double by an exact power of ten, correctly rounded, as
 * parsing the text is.
 */
function numbersFit(span: StagedColumn, target: Target): boolean {
  switch (target.numbers) {
    case 'none':
      return false;
    case 'integer':
      return span.fraction === 0;
    case 'double':
      return span.integral + span.fraction <= 15;
    case 'decimal':
      return span.fraction <= target.scale && span.integral <= target.precision - target.scale;
  }
}

/**
 * The statement's staged rows, as CSV for `read_csv` with `allow_quoted_nulls=false`, when every value lands
 * in these columns as the SQL would put it; else null: a column type outside the known scalar types, numbers
 * that do not fit as {@link numbersFit} says, a minus zero (the SQL negates the literal 0, which has no sign;
 * `-0.0` parses to a negative zero), a NUL character, or a one-column table with a NULL (an empty line).
 */
export function stageRows(
  statement: Extract<DumpStatement, { kind: 'rows' }>,
  engineTypes: readonly string[],
): string | null {
  const { columns } = statement;
  if (columns.length !== engineTypes.length) return null;
  for (let c = 0; c < columns.length; c++) {
    const column = columns[c]!;
    const target = targetOf(engineTypes[c]!);
    if (!target || column.nul || (column.nulls && columns.length === 1)) return null;
    if (column.kind === 'number' && (column.minusZero || !numbersFit(column, target))) return null;
  }
  return statement.csv;
}

/** The `read_csv` call that reads {@link stageRows}'s text from `path` as `columns` VARCHAR columns. */
export function stagedRowsSql(path: string, columns: number): string {
  const names = Array.from({ length: columns }, (_, i) => `'c${i}': 'VARCHAR'`).join(', ');
  return (
    `SELECT * FROM read_csv('${path.replace(/'/g, "''")}', columns = {${names}}, header = false, auto_detect = false, ` +
    `delim = ',', quote = '"', escape = '"', new_line = '\\n', allow_quoted_nulls = false, null_padding = false, ` +
    `parallel = false)`
  );
}
