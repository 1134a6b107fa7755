/**
 * YAML/JSON source with positions: every value the loaders read keeps its
 * node, so a problem can name the line it is on. JSON is YAML 1.2: text
 * JSON.parse accepted gets the same node tree from a linear scan
 * (`json-tree.ts`); anything else, and JSON with a duplicate key (which
 * only the YAML parser reports), is read by the YAML parser.
 */
import {
  Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
  type Node,
  type Pair,
  type YAMLMap,
} from 'yaml';
import { jsonTree } from './json-tree.ts';

export interface Position {
  line: number;
  column: number;
}

export class Source {
  readonly doc: Document.Parsed;
  private readonly lines: LineCounter;

  /** `json`: the text is known to be JSON (JSON.parse accepted it), so the linear JSON scan may build the tree. */
  constructor(text: string, options: { json?: boolean } = {}) {
    this.lines = new LineCounter();
    const tree = options.json ? jsonTree(text) : null;
    if (tree) {
      const doc = new Document();
      doc.contents = tree;
      this.doc = doc as Document.Parsed;
      countLines(text, this.lines);
    } else
      this.doc = parseDocument(text, { lineCounter: this.lines, uniqueKeys: true, prettyErrors: false, strict: true });
  }

  /** Syntax errors, with their positions. */
  errors(): { message: string; line?: number; column?: number }[] {
    return this.doc.errors.map((e) => {
      const pos = this.lines.linePos(e.pos[0]);
      const message = e.message.split('\n')[0]!;
      // The parser recurses per level: a list thousands deep overflows the stack, and said only that.
      if (/Maximum call stack size exceeded/.test(message))
        return {
          message: 'Lists or mappings nested too deeply to read (the stack ran out).',
          line: pos.line,
          column: pos.col,
        };
      return { message, line: pos.line, column: pos.col };
    });
  }

  position(node: Node | null | undefined): Position | undefined {
    const offset = node?.range?.[0];
    if (offset === undefined) return undefined;
    const p = this.lines.linePos(offset);
    return { line: p.line, column: p.col };
  }

  positionOfOffset(offset: number): Position {
    const p = this.lines.linePos(offset);
    return { line: p.line, column: p.col };
  }

  /**
   * The node an alias (`*name`) stands for, one step (its items stay as they are, so a bomb is not expanded);
   * any other node as it is. Where the loader walks the tree (the cases list, a case) an alias was "not a list".
   */
  resolve<T extends Node | null | undefined>(node: T): Node | T {
    return isAlias(node) ? ((node.resolve(this.doc) as Node | undefined) ?? node) : node;
  }

  toJS(node: Node | null | undefined): unknown {
    if (!node) return undefined;
    return node.toJS(this.doc, { maxAliasCount: 100 });
  }
}

/** The line starts the YAML parser reports: offset 0, then the offset after each line feed. */
function countLines(text: string, lines: LineCounter): void {
  lines.addNewLine(0);
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines.addNewLine(i + 1);
}

/** A file read as JSON: named .json, or not named YAML and opening with { or [ (a run or corpus exported without a suffix). */
export function looksLikeJson(file: string, text: string): boolean {
  return /\.json$/i.test(file) || (!/\.ya?ml$/i.test(file) && /^\uFEFF?\s*[{[]/.test(text));
}

/** JSON.parse's complaint with its line and column (from the position V8 reports), or null when the text is JSON. */
export function jsonSyntaxError(text: string): { line: number; column: number; message: string } | null {
  try {
    JSON.parse(text);
    return null;
  } catch (thrown) {
    const message = (thrown instanceof Error ? thrown.message : String(thrown)).replace(
      /\s*\(line \d+ column \d+\)$/,
      '',
    );
    const at = /at position (\d+)/.exec(message);
    const token = TOKEN_WITH_EXCERPT.exec(message);
    const offset = at ? Number(at[1]) : token ? excerptOffset(text, token) : text.length;
    const before = text.slice(0, offset);
    const line = before.split('\n').length;
    const column = offset - before.lastIndexOf('\n');
    const said = token ? `Unexpected token '${token[1]}'` : message.replace(/ (?:in JSON )?at position \d+/, '');
    return { line, column, message: said };
  }
}

/**
 * V8 words an unexpected token with an excerpt of the text instead of its position ("Unexpected token ']',
 * ..."LECT 1"},\n]}" is not valid JSON"): the excerpt, line feeds and all, made a message of several lines,
 * placed at the end of the file. It is up to 10 characters either side of the token, cut with "..." where the
 * text goes on, or the whole text when that is 21 characters or fewer.
 */
const TOKEN_WITH_EXCERPT = /^Unexpected token '([^]*?)', (\.\.\.)?"([^]*)"(\.\.\.)? is not valid JSON$/;

function excerptOffset(text: string, [, token, before, excerpt, after]: RegExpExecArray): number {
  const start = text.indexOf(excerpt!);
  if (start < 0) return text.length;
  if (before) return start + 10;
  if (after) return start + excerpt!.length - 10;
  return Math.max(0, text.indexOf(token!));
}

export function pairOf(map: YAMLMap, key: string): Pair<Node, Node | null> | undefined {
  return (map.items as Pair<Node, Node | null>[]).find((p) => isScalar(p.key) && p.key.value === key);
}

export function keysOf(map: YAMLMap): { key: string; node: Node }[] {
  return (map.items as Pair<Node, Node | null>[]).flatMap((p) =>
    isScalar(p.key) ? [{ key: String(p.key.value), node: p.key }] : [],
  );
}

/**
 * The node at a codec path such as `expected.rows[3][0]` below `root` (which
 * stands for the path's first segment); the deepest node found when the path
 * leaves the tree.
 */
export function nodeAtPath(root: Node, path: string): Node {
  const segments = [...path.matchAll(/\.([^.[\]]+)|\[(\d+)\]/g)].map((m) =>
    m[2] !== undefined ? Number(m[2]) : m[1]!,
  );
  let node: Node = root;
  for (const segment of segments) {
    let next: Node | null | undefined;
    if (typeof segment === 'number' && isSeq(node)) next = node.items[segment] as Node | undefined;
    else if (typeof segment === 'string' && isMap(node)) next = pairOf(node, segment)?.value;
    if (!next) break;
    node = next;
  }
  return node;
}

/** The known name closest to a misspelt one (edit distance ≤ 2). */
export function closest(name: string, known: readonly string[]): string | undefined {
  const wanted = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of known) {
    // The distance is at least the difference in length: most names are skipped unread.
    if (Math.abs(candidate.length - wanted.length) >= bestDistance) continue;
    const d = editDistanceBelow(wanted, candidate, bestDistance);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** The edit distance when it is below `limit`, else `limit` (a row whose every entry reaches it ends the search). */
function editDistanceBelow(a: string, b: string, limit: number): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    let least = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
      if (row[j]! < least) least = row[j]!;
    }
    if (least >= limit) return limit;
  }
  return Math.min(row[b.length]!, limit);
}
