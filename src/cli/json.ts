/**
 * JSON for people and machines: indented objects, but arrays of plain values
 * (a result row, a list of ids) on one line, and a list of rows one row per
 * line, so a thousand-row result stays a thousand lines.
 */
const isPlain = (v: unknown) => v === null || typeof v !== 'object';

export function prettyJson(value: unknown, indent = ''): string {
  if (isPlain(value)) return JSON.stringify(value) ?? 'null';
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
