/**
 * A word-level diff of two SQL texts for the case view, beside the clause
 * diff: what a reader sees changed in the text itself (a dropped filter, a
 * DESC for an ASC). Longest common subsequence over tokens (words, numbers,
 * quoted strings, single punctuation, whitespace runs); texts beyond the
 * budget fall back to a line-level diff so the page never stalls.
 */

export interface TextDiffPart {
  op: 'same' | 'removed' | 'added';
  text: string;
}

const TOKEN = /\s+|'(?:[^']|'')*'?|"(?:[^"]|"")*"?|[A-Za-z_][A-Za-z0-9_$]*|\d+(?:\.\d+)?|./gs;

export function sqlTokens(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

/** LCS table cells at most (tokens × tokens); above it, lines are diffed instead. */
const BUDGET = 4_000_000;

/** Whitespace runs compare equal whatever they hold: a reflowed query is not a changed one. */
const key = (t: string) => (/^\s+$/.test(t) ? ' ' : t);

function lcsDiff(a: string[], b: string[]): TextDiffPart[] {
  // Common head and tail first: most candidate SQL shares long runs with the reference.
  let head = 0;
  while (head < a.length && head < b.length && key(a[head]!) === key(b[head]!)) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    key(a[a.length - 1 - tail]!) === key(b[b.length - 1 - tail]!)
  )
    tail++;
  const x = a.slice(head, a.length - tail).map(key);
  const y = b.slice(head, b.length - tail).map(key);
  const yText = b.slice(head, b.length - tail);
  const n = x.length;
  const m = y.length;
  const table = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      table[i * (m + 1) + j] =
        x[i] === y[j]
          ? table[(i + 1) * (m + 1) + j + 1]! + 1
          : Math.max(table[(i + 1) * (m + 1) + j]!, table[i * (m + 1) + j + 1]!);
  const parts: TextDiffPart[] = [];
  const push = (op: TextDiffPart['op'], text: string) => {
    const last = parts[parts.length - 1];
    if (last && last.op === op) last.text += text;
    else parts.push({ op, text });
  };
  // Same parts read as the candidate wrote them.
  if (head) push('same', b.slice(0, head).join(''));
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) {
      push('same', yText[j]!);
      i++;
      j++;
    } else if (i < n && (j === m || table[(i + 1) * (m + 1) + j]! >= table[i * (m + 1) + j + 1]!))
      push('removed', a[head + i++]!);
    else push('added', yText[j++]!);
  }
  if (tail) push('same', b.slice(b.length - tail).join(''));
  return parts;
}

/** The parts that turn `before` into `after`: joining the same and added parts gives `after`; whitespace differences are not changes. */
export function diffSqlText(before: string, after: string): TextDiffPart[] {
  const a = sqlTokens(before);
  const b = sqlTokens(after);
  if (a.length * b.length <= BUDGET) return lcsDiff(a, b);
  const lines = (t: string) => t.split(/(?<=\n)/);
  const la = lines(before);
  const lb = lines(after);
  if (la.length * lb.length <= BUDGET) return lcsDiff(la, lb);
  return before === after
    ? [{ op: 'same', text: before }]
    : [
        { op: 'removed', text: before },
        { op: 'added', text: after },
      ];
}
