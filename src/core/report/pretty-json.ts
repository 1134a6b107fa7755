/**
 * JSON for people and machines: indented objects, but arrays of plain values
 * (a result row, a list of ids) on one line, and a list of rows one row per
 * line, so a thousand-row result stays a thousand lines.
 */
const isPlain = (v: unknown) => v === null || typeof v !== 'object';

/** Objects printed already (in a grading worker): their text at that indent. */
const PRINTED = new WeakMap<object, { indent: string; text: string }>();

/**
 * `value` is JSON.parse(text) of `text = prettyJson(original, indent)`:
 * printing it again at that indent gives `text` at once.
 */
export function rememberPrinted(value: object, indent: string, text: string): void {
  remembering = true;
  PRINTED.set(value, { indent, text });
}

/** Whether this thread has remembered any printed text (then the walk below must look for it). */
let remembering = false;

export function prettyJson(value: unknown, indent = ''): string {
  if (isPlain(value)) return JSON.stringify(value) ?? 'null';
  if (!remembering) return nativePretty(value, indent);
  // Pieces joined once: one flat string, not a rope of nested template strings.
  const out: string[] = [];
  writePretty(value, indent, out);
  return out.join('');
}

/** An array of plain values as JSON.stringify(…, null, 2) prints it: one value a line (a string never holds a raw newline). */
const PLAIN_ARRAY =
  /\[\n +(?:"(?:[^"\\\n]|\\.)*"|[-+.\deE]+|true|false|null)(?:,\n +(?:"(?:[^"\\\n]|\\.)*"|[-+.\deE]+|true|false|null))*\n *\]/g;

/**
 * The same text as the walk, from V8's native JSON printer: its indented
 * layout with every array of plain values folded onto one line. A grading
 * worker prints every case report; this is several times faster.
 */
function nativePretty(value: unknown, indent: string): string {
  const folded = (JSON.stringify(value, null, 2) ?? 'null').replace(PLAIN_ARRAY, (list) =>
    list
      .replace(/^\[\n +/, '[')
      .replace(/\n *\]$/, ']')
      .replace(/,\n +/g, ', '),
  );
  return indent ? folded.split('\n').join(`\n${indent}`) : folded;
}

function writePretty(value: unknown, indent: string, out: string[]): void {
  if (isPlain(value)) {
    out.push(JSON.stringify(value) ?? 'null');
    return;
  }
  const printed = PRINTED.get(value as object);
  if (printed?.indent === indent) {
    out.push(printed.text);
    return;
  }
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) out.push('[]');
    else if (value.every(isPlain)) out.push(`[${value.map((v) => JSON.stringify(v) ?? 'null').join(', ')}]`);
    else {
      out.push('[\n');
      for (let i = 0; i < value.length; i++) {
        out.push(i === 0 ? inner : `,\n${inner}`);
        writePretty(value[i], inner, out);
      }
      out.push(`\n${indent}]`);
    }
    return;
  }
  const record = value as Record<string, unknown>;
  let first = true;
  for (const key of Object.keys(record)) {
    const v = record[key];
    if (v === undefined) continue;
    out.push(`${first ? '{\n' : ',\n'}${inner}${JSON.stringify(key)}: `);
    first = false;
    writePretty(v, inner, out);
  }
  out.push(first ? '{}' : `\n${indent}}`);
}

/**
 * The pieces of `prettyJson(value)`, in order (their concatenation is the
 * same text): lists and objects are cut at each element, so a million-row
 * result or a run report is never one string (V8 caps a string near 512 MiB,
 * "RangeError: Invalid string length").
 */
export function* prettyJsonPieces(value: unknown, indent = ''): Generator<string> {
  if (
    isPlain(value) ||
    (Array.isArray(value) && (value.length === 0 || value.every(isPlain))) ||
    PRINTED.get(value as object)?.indent === indent
  ) {
    yield prettyJson(value, indent);
    return;
  }
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    yield '[\n';
    for (let i = 0; i < value.length; i++) {
      yield inner;
      yield* prettyJsonPieces(value[i], inner);
      yield i < value.length - 1 ? ',\n' : '\n';
    }
    yield `${indent}]`;
    return;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  if (entries.length === 0) {
    yield '{}';
    return;
  }
  yield '{\n';
  for (let i = 0; i < entries.length; i++) {
    const [k, v] = entries[i]!;
    yield `${inner}${JSON.stringify(k)}: `;
    yield* prettyJsonPieces(v, inner);
    yield i < entries.length - 1 ? ',\n' : '\n';
  }
  yield `${indent}}`;
}

/**
 * Print `prettyJson(value)` through a line printer (`Io.out`, which ends the
 * text with a newline) in blocks of whole lines of about `blockChars`.
 */
export function printJson(out: (text: string) => void, value: unknown, blockChars = 1 << 20): void {
  let buffer = '';
  for (const piece of prettyJsonPieces(value)) {
    buffer += piece;
    if (buffer.length < blockChars) continue;
    const cut = buffer.lastIndexOf('\n');
    if (cut < 0) continue;
    out(buffer.slice(0, cut + 1));
    buffer = buffer.slice(cut + 1);
  }
  out(buffer);
}
