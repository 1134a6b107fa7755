/**
 * Parsing per dialect. The parser is not the judge of validity — the engine
 * is — so a failure here is reported as data for the pipeline to classify
 * (`parse_error` when the engine also rejects the SQL, `parser_unsupported`
 * when the engine runs it), with the dialect construct that most likely
 * explains it. Known holes of the parser are guarded: empty text, a bare
 * comment or `;` (the parser returns an empty statement list), several
 * statements, non-SELECT statements, and implicit column aliases
 * (`SELECT a b FROM t` parses as `a AS b`: reported as a warning, since it is
 * valid SQL that is usually a missing comma).
 */
import type { VerdictError } from '../errors.ts';
import { messageOf } from '../errors.ts';
import { lexStatements } from '../sandbox/statements.ts';
import { isSetOperator, unsupportedConstruct } from './constructs.ts';
import { adaptQuery, UnsupportedConstructError } from './from-ast.ts';
import type { Dialect, GrammarName } from './grammar.ts';
import { GRAMMAR_CHAIN, grammarOption, grammarParser } from './grammar.ts';
import type { Query } from './ir.ts';
import { allSelects, childQueries, selectExprs } from './ir.ts';
import { tokenize } from '../sql/lexer.ts';
import { explicitAliases, quotedIdentifiers } from './tokens.ts';
import { memoParse } from './memo.ts';
import { readQuery } from './reader/index.ts';

export interface ParseWarning {
  code: 'implicit_column_alias';
  message: string;
}

export interface ParsedSql {
  dialect: Dialect;
  /** The node-sql-parser grammar that produced the tree. */
  grammar: GrammarName;
  /** The statement parsed (without a trailing semicolon). */
  sql: string;
  query: Query;
  warnings: ParseWarning[];
}

export interface ParseFailure extends VerdictError {
  /** validation.parser_unsupported once the pipeline knows the engine runs the SQL. */
  code: 'validation.parse_error' | 'validation.empty_sql' | 'validation.parser_unsupported';
  /** Grammars tried, in order, with each one's message. */
  attempts: { grammar: GrammarName; message: string }[];
  /** Dialect constructs used by the SQL that the parser chain does not support (most likely cause first). */
  constructs: string[];
}

export type ParseOutcome = { ok: true; value: ParsedSql } | { ok: false; error: ParseFailure };

function failure(code: ParseFailure['code'], message: string, extra: Partial<ParseFailure> = {}): ParseOutcome {
  return { ok: false, error: { code, message, attempts: [], constructs: [], ...extra } };
}

/**
 * Parse one read query. Never throws. One parse per distinct text and dialect:
 * the outcome is cached and shared (frozen), see memo.ts.
 */
export function parseSql(sql: string, dialect: Dialect): ParseOutcome {
  if (typeof sql !== 'string') return failure('validation.empty_sql', 'No SQL text was given.');
  return memoParse(sql, dialect, () => parseUncached(sql, dialect));
}

/** Object levels a tree may have: Spider's deepest query has 20; 2,000 overflowed the stack. */
export const MAX_TREE_DEPTH = 256;

function parseUncached(sql: string, dialect: Dialect): ParseOutcome {
  const outcome = parseText(sql, dialect, true);
  // A left-nested expression of thousands of terms (a model's repetition loop) parses, but
  // every recursive walk of its tree (freezing it for the cache first) overflowed the stack
  // and ended the whole run. Such a tree is not analysed; the engine still grades the query.
  if (outcome.ok && deeperThan(outcome.value.query, MAX_TREE_DEPTH))
    return failure(
      'validation.parse_error',
      `The query nests more than ${MAX_TREE_DEPTH} levels deep (an expression of thousands of terms?): too deep to analyse its structure.`,
      { attempts: [{ grammar: outcome.value.grammar, message: 'tree too deep' }] },
    );
  return outcome;
}

/** Whether a plain tree has more than `limit` object levels (iterative: the tree may be deep). */
function deeperThan(tree: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[tree, 1]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (!node || typeof node !== 'object') continue;
    if (depth > limit) return true;
    for (const key in node) stack.push([(node as Record<string, unknown>)[key], depth + 1]);
  }
  return false;
}

/**
 * The node-sql-parser path alone, uncached: what {@link parseSql} answers when
 * the fast reader (reader/) declines. The differential tests compare the two.
 */
export function parseWithGrammars(sql: string, dialect: Dialect): ParseOutcome {
  return parseText(sql, dialect, false);
}

type Statement = { text: string; tokens: ReturnType<typeof tokenize>; quoted: Set<string> };

/** The one statement of the text, lexed; or the failure that there is not exactly one. */
function statementOf(sql: string): Statement | ParseOutcome {
  const statements = lexStatements(sql).filter((s) => !s.empty);
  if (statements.length === 0)
    return failure('validation.empty_sql', 'There is no SQL statement (the text is empty or only comments).');
  if (statements.length > 1)
    return failure(
      'validation.parse_error',
      `Only one statement may be compared; this text holds ${statements.length}.`,
      {
        statement_kind: 'multiple_statements',
      },
    );
  const text = statements[0]!.text;
  const tokens = tokenize(text);
  return { text, tokens, quoted: quotedIdentifiers(tokens, text) };
}

function parseText(sql: string, dialect: Dialect, fast: boolean): ParseOutcome {
  if (fast) {
    // The hand-written reader answers the common subset far faster, or
    // declines (null) and the grammars decide.
    const read = readStatement(sql, dialect);
    if (read) return { ok: true, value: read };
  }
  const st = statementOf(sql);
  if ('ok' in st) return st;
  return parseByGrammars(st.text, st.tokens, st.quoted, dialect);
}

/**
 * The statement text as lexStatements would give it, without the full split,
 * for a text with no comment and no semicolon but a trailing one; else null.
 * (An unterminated quote could hide a semicolon: the reader declines those.)
 */
function plainStatement(sql: string): string | null {
  let text = sql.trim();
  if (text.endsWith(';')) text = text.slice(0, -1).trim();
  if (text === '' || text.includes(';') || text.includes('--') || text.includes('/*')) return null;
  return text;
}

/**
 * The reader's answer. It consumes every SELECT and set-operator token into
 * the tree and every `(SELECT` into a subquery, derived table or IN/EXISTS
 * body, so lostConstruct has nothing to find (the reader declines the one
 * place lostConstruct does not look: a subquery in a set operation's ORDER
 * BY); and every column alias it read after AS is an explicit one, so
 * warningsFor runs only when it read one without.
 */
function readStatement(sql: string, dialect: Dialect): ParsedSql | null {
  const text = plainStatement(sql);
  if (text === null) return null;
  const tokens = tokenize(text);
  const read = readQuery(text, tokens, quotedIdentifiers(tokens, text), dialect);
  if (!read) return null;
  const { grammar, query } = read;
  return { dialect, grammar, sql: text, query, warnings: read.implicitAlias ? warningsFor(query, tokens) : [] };
}

/** The fast reader alone, uncached: its answer, or null where it declines (tests measure its coverage). */
export function parseFastOnly(sql: string, dialect: Dialect): ParsedSql | null {
  return typeof sql === 'string' ? readStatement(sql, dialect) : null;
}

function parseByGrammars(
  text: string,
  tokens: ReturnType<typeof tokenize>,
  quoted: Set<string>,
  dialect: Dialect,
): ParseOutcome {
  const attempts: ParseFailure['attempts'] = [];
  const unsupported: string[] = [];
  for (const grammar of GRAMMAR_CHAIN[dialect]) {
    const parser = grammarParser(grammar);
    const opt = grammarOption(grammar);
    let ast: unknown;
    try {
      ast = parser.astify(text, opt);
    } catch (thrown) {
      attempts.push({ grammar, message: shortMessage(messageOf(thrown)) });
      continue;
    }
    const list = Array.isArray(ast) ? ast.filter((a) => !(Array.isArray(a) && a.length === 0)) : [ast];
    if (list.length !== 1) {
      attempts.push({ grammar, message: `expected one statement, the parser returned ${list.length}` });
      continue;
    }
    try {
      const query = adaptQuery(list[0], {
        quoted,
        exprToSql: (node) => exprToSql(parser, opt, node),
      });
      const lost = lostConstruct(query, tokens);
      if (lost) throw new UnsupportedConstructError(lost);
      return { ok: true, value: { dialect, grammar, sql: text, query, warnings: warningsFor(query, tokens) } };
    } catch (thrown) {
      if (thrown instanceof UnsupportedConstructError) {
        unsupported.push(thrown.construct);
        attempts.push({ grammar, message: `parsed, but ${thrown.construct} is not modelled by the structural layer` });
        continue;
      }
      attempts.push({ grammar, message: shortMessage(messageOf(thrown)) });
    }
  }
  const named = unsupportedConstruct(text, dialect);
  const constructs = [...new Set([...(named ? [named] : []), ...unsupported])];
  const first = attempts[0]?.message ?? 'unknown parser error';
  const message = constructs.length
    ? `The ${dialect} parser could not parse this SQL; it uses ${constructs.join(', ')}. (${first})`
    : `The ${dialect} parser could not parse this SQL: ${first}`;
  return failure('validation.parse_error', message, { attempts, constructs, raw: first });
}

function shortMessage(m: string): string {
  // Peg.js lists every expected token; keep the part that says where it failed.
  const found = /but (.*) found\.?$/s.exec(m);
  const loc = /line (\d+), column (\d+)/.exec(m);
  if (found) return `unexpected ${found[1]}${loc ? ` at line ${loc[1]}, column ${loc[2]}` : ''}`;
  return m.length > 200 ? `${m.slice(0, 200)}…` : m;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function exprToSql(parser: { sqlify(ast: any, opt: object): string }, opt: object, node: unknown): string {
  const ast = {
    type: 'select',
    with: null,
    options: null,
    distinct: null,
    columns: [{ expr: node, as: null }],
    from: null,
    where: null,
    groupby: null,
    having: null,
    orderby: null,
    limit: null,
  };
  try {
    return parser.sqlify(ast, opt).replace(/^SELECT\s+/i, '');
  } catch {
    return '/* unprintable */';
  }
}

/**
 * Keyword accounting: every SELECT and set operator of the text must be in the
 * tree. The grammars silently misread some forms — `a UNION (SELECT ...)`
 * becomes a comma join with a derived table — so a tree that lost one is refused.
 */
function lostConstruct(query: Query, tokens: ReturnType<typeof tokenize>): string | null {
  const selects = tokens.filter((t) => t.upper === 'SELECT').length;
  const setOps = tokens.filter((_, i) => isSetOperator(tokens, i)).length;
  let treeOps = 0;
  walkQueries(query, (q) => {
    if (q.kind === 'setop') treeOps += q.ops.length;
  });
  const treeSelects = allSelects(query).length;
  if (setOps !== treeOps) {
    const parenArm = tokens.some(
      (t, i) => isSetOperator(tokens, i) && (tokens[i + 1]?.text === '(' || tokens[i + 2]?.text === '('),
    );
    return parenArm ? 'parenthesized set-operation arm' : 'set operation';
  }
  if (selects !== treeSelects) return 'subquery';
  // Every `(SELECT` / `(WITH` opens a subquery, a derived table, a CTE body or a
  // parenthesized set-operation arm; the sqlite grammar drops an arm's parentheses.
  const opened = tokens.filter(
    (t, i) => t.text === '(' && (tokens[i + 1]?.upper === 'SELECT' || tokens[i + 1]?.upper === 'WITH'),
  ).length;
  let nested = query.parens ? 1 : 0;
  walkQueries(query, (q) => {
    nested += q.with?.ctes.length ?? 0;
    if (q.kind === 'setop') nested += q.arms.filter((a) => a.parens).length;
    else
      nested += q.from.filter((f) => f.source.kind === 'derived').length + selectExprs(q).flatMap(childQueries).length;
  });
  if (opened !== nested) return 'parenthesized set-operation arm';
  return null;
}

/** Visit every query node (set operations included), nested ones too. */
function walkQueries(q: Query, visit: (q: Query) => void): void {
  visit(q);
  for (const c of q.with?.ctes ?? []) walkQueries(c.query, visit);
  if (q.kind === 'setop') {
    q.arms.forEach((a) => walkQueries(a, visit));
    return;
  }
  for (const f of q.from) if (f.source.kind === 'derived') walkQueries(f.source.query, visit);
  for (const e of selectExprs(q)) for (const sub of childQueries(e)) walkQueries(sub, visit);
}

function warningsFor(query: Query, tokens: ReturnType<typeof tokenize>): ParseWarning[] {
  const explicit = explicitAliases(tokens);
  const warnings: ParseWarning[] = [];
  for (const s of allSelects(query)) {
    for (const c of s.columns) {
      if (c.alias && !explicit.has(c.alias.value.toLowerCase())) {
        warnings.push({
          code: 'implicit_column_alias',
          message: `\`${c.alias.value}\` is read as a column alias without AS; if a comma is missing, the query returns one column instead of two.`,
        });
      }
    }
  }
  return warnings;
}
