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
  PRINTED.set(value, { indent, text });
}

export function prettyJson(value: unknown, indent = ''): string {
  if (isPlain(value)) return JSON.stringify(value) ?? 'null';
  const printed = PRINTED.get(value as object);
  if (printed?.indent === indent) return printed.text;
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    if (value.every(isPlain)) return `[${value.map((v) => JSON.stringify(v) ?? 'null').join(', ')}]`;
    return `[\n${value.map((v) => `${inner}${prettyJson(v, inner)}`).join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return '{}';
  return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${prettyJson(v, inner)}`).join(',\n')}\n${indent}}`;
}
