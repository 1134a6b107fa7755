// Not on the shared lexer (src/core/sql/lexer.ts) on purpose: that one knows no E'…' backslash escapes, $tag$ dollar quotes or [bracket] skipping, so its view of where a statement ends could differ from this gate's.
/**
 * A lexical view of untrusted SQL: where statements end, and what kind each
 * one is. It is not the gate — the engine is (see `src/engines`) — but it
 * lets the sandbox reject obvious writes with a precise reason before the
 * engine sees them, and name the kind of a statement the engine rejected.
 */

export interface LexedStatement {
  /** The statement text without its terminating semicolon. */
  text: string;
  /** Lower-case first keyword, or '' when the statement has none. */
  firstKeyword: string;
  /** True when the text is only whitespace and comments. */
  empty: boolean;
}

/** Statement kinds that never run in the sandbox, by first keyword. */
const REJECTED_KINDS = new Set([
  'insert',
  'update',
  'delete',
  'merge',
  'upsert',
  'replace',
  'truncate',
  'create',
  'drop',
  'alter',
  'rename',
  'comment',
  'copy',
  'export',
  'import',
  'attach',
  'detach',
  'use',
  'install',
  'load',
  'force',
  'set',
  'reset',
  'pragma',
  'call',
  'execute',
  'prepare',
  'deallocate',
  'begin',
  'start',
  'commit',
  'end',
  'rollback',
  'abort',
  'savepoint',
  'release',
  'transaction',
  'checkpoint',
  'vacuum',
  'analyze',
  'reindex',
  'grant',
  'revoke',
  'explain',
]);

/** First keywords of statements that may be reads (the engine decides). */
export const READ_KINDS: ReadonlySet<string> = new Set([
  'select',
  'with',
  'values',
  'from',
  'table',
  'describe',
  'show',
  'summarize',
  'pivot',
  'unpivot',
  '(',
]);

/**
 * Split SQL into statements at top-level semicolons, skipping quoted text,
 * quoted identifiers, dollar-quoted strings and comments.
 */
export function lexStatements(sql: string): LexedStatement[] {
  const out: LexedStatement[] = [];
  let start = 0;
  let firstKeyword = '';
  let sawCode = false;
  let i = 0;
  const n = sql.length;
  const push = (end: number) => {
    out.push({ text: sql.slice(start, end).trim(), firstKeyword, empty: !sawCode });
    firstKeyword = '';
    sawCode = false;
  };
  while (i < n) {
    const ch = sql[i]!;
    const next = sql[i + 1];
    if (ch === '-' && next === '-') {
      // DuckDB's scanner also ends a line comment at a lone \r: so must we, or `--x\r; DROP …` hides a statement.
      let end = i + 2;
      while (end < n && sql[end] !== '\n' && sql[end] !== '\r') end++;
      i = end + 1;
      continue;
    }
    if (ch === '/' && next === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
      continue;
    }
    if (ch === ';') {
      push(i);
      start = i + 1;
      i++;
      continue;
    }
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (!sawCode) {
      sawCode = true;
      const word = /^[A-Za-z_]+/.exec(sql.slice(i, i + 32));
      firstKeyword = word ? word[0].toLowerCase() : ch;
    }
    if (ch === "'" || ch === '"' || ch === '`') {
      const backslashEscapes = ch === "'" && i > 0 && /[eE]/.test(sql[i - 1]!) && !/\w/.test(sql[i - 2] ?? ' ');
      i = skipQuoted(sql, i, ch, backslashEscapes);
      continue;
    }
    if (ch === '[') {
      const end = sql.indexOf(']', i + 1);
      i = end < 0 ? n : end + 1;
      continue;
    }
    if (ch === '$') {
      const tag = /^\$[A-Za-z_]*\$/.exec(sql.slice(i, i + 64));
      if (tag && !/\w/.test(sql[i - 1] ?? ' ')) {
        const end = sql.indexOf(tag[0], i + tag[0].length);
        i = end < 0 ? n : end + tag[0].length;
        continue;
      }
    }
    i++;
  }
  push(n);
  return out;
}

function skipQuoted(sql: string, open: number, quote: string, backslashEscapes: boolean): number {
  let i = open + 1;
  while (i < sql.length) {
    const ch = sql[i]!;
    if (backslashEscapes && ch === '\\') {
      i += 2;
      continue;
    }
    if (ch === quote) {
      if (sql[i + 1] === quote) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i++;
  }
  return sql.length;
}

export type GateVerdict =
  { allowed: true; statement: string; kind: string } | { allowed: false; kind: string; reason: string };

/**
 * The lexical pre-check of the sandbox: exactly one non-empty statement whose
 * first keyword is not a known write, DDL, session or transaction keyword.
 * Passing it does not make SQL safe; the engine gate still applies.
 */
export function precheckStatement(sql: string): GateVerdict {
  if (sql.includes('\u0000'))
    return { allowed: false, kind: 'invalid_text', reason: 'The SQL contains a NUL character.' };
  const statements = lexStatements(sql).filter((s) => !s.empty);
  if (statements.length === 0)
    return { allowed: false, kind: 'empty', reason: 'There is no SQL statement (the text is empty or only comments).' };
  if (statements.length > 1) {
    const kinds = statements.map((s) => s.firstKeyword.toUpperCase()).join(', ');
    return {
      allowed: false,
      kind: 'multiple_statements',
      reason: `Only one statement may run; this text holds ${statements.length} (${kinds}).`,
    };
  }
  const statement = statements[0]!;
  const kind = statementKind(statement);
  if (REJECTED_KINDS.has(kind) || kind.startsWith('with_'))
    return {
      allowed: false,
      kind,
      reason: `${describeKind(kind)} statements are not allowed: only read queries run in the sandbox.`,
    };
  return { allowed: true, statement: statement.text, kind };
}

/** The statement's kind: its first keyword, or for WITH, the keyword after the CTEs when that is a write. */
export function statementKind(statement: LexedStatement): string {
  const kind = statement.firstKeyword;
  if (kind !== 'with') return READ_KINDS.has(kind) || REJECTED_KINDS.has(kind) ? kind : kind || 'unknown';
  const tail = keywordAfterCtes(statement.text);
  return tail && REJECTED_KINDS.has(tail) ? `with_${tail}` : 'with';
}

/** After `WITH a AS (...), b AS (...)`, the first top-level keyword. */
function keywordAfterCtes(text: string): string | null {
  let depth = 0;
  let sawParen = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "'" || ch === '"' || ch === '`') {
      i = skipQuoted(text, i, ch, false) - 1;
      continue;
    }
    if (ch === '(') {
      depth++;
      sawParen = true;
    } else if (ch === ')') depth--;
    else if (depth === 0 && sawParen && /[A-Za-z]/.test(ch)) {
      const word = /^[A-Za-z_]+/.exec(text.slice(i))![0].toLowerCase();
      if (word !== 'as' && word !== 'materialized' && word !== 'not' && word !== 'recursive') {
        if (['select', 'insert', 'update', 'delete', 'merge', 'from', 'values', 'table'].includes(word)) return word;
      }
      i += word.length - 1;
    }
  }
  return null;
}

export function describeKind(kind: string): string {
  if (kind.startsWith('with_')) return `WITH … ${kind.slice(5).toUpperCase()}`;
  return kind.toUpperCase();
}
