/**
 * A baseline file as written by `sql-verdict baseline record`, read from its
 * text so that a problem names the file, the line and the field: the app's
 * gate panel loads baselines a user picks. Validation itself is
 * `parseBaseline`'s; this only adds positions.
 */
import { isMap, type Node } from 'yaml';
import { nodeAtPath, Source } from '../corpus/source.ts';
import { fail, messageOf, type Outcome } from '../errors.ts';
import { parseBaseline, type Baseline } from './baseline.ts';

/** Line of a character offset (1-based). */
function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < Math.min(offset, text.length); i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** The line a JSON.parse error points at: V8 says "(line L column C)" or "at position N"; otherwise the YAML parser's first error. */
function syntaxLine(text: string, message: string): number | undefined {
  const lc = /line (\d+) column \d+/.exec(message);
  if (lc) return Number(lc[1]);
  const at = /at position (\d+)/.exec(message);
  if (at) return lineOf(text, Number(at[1]));
  return new Source(text).errors()[0]?.line;
}

export function readBaselineFile(file: string, text: string): Outcome<Baseline> {
  let value: unknown;
  try {
    // JSON.parse: baselines are the JSON `sql-verdict baseline record` writes.
    value = JSON.parse(text);
  } catch (thrown) {
    const message = messageOf(thrown);
    const line = syntaxLine(text, message);
    return fail('input.invalid', `${file}${line ? `:${line}` : ''}: not valid JSON (${message}).`, {
      location: line ? `${file}:${line}` : file,
    });
  }
  if (typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'run') {
    return fail(
      'input.invalid',
      `${file}: this is a run report, not a baseline; record one from it with "sql-verdict baseline record --report ${file} --out baseline.json".`,
      {
        location: file,
      },
    );
  }
  const parsed = parseBaseline(value);
  if (parsed.ok) return parsed;
  const field = parsed.error.location;
  let line: number | undefined;
  if (field) {
    // Only a field that is present has a line; a missing one is named without.
    const source = new Source(text);
    const root = source.doc.contents as Node | null;
    if (root && isMap(root)) {
      const node = nodeAtPath(root, `baseline.${field}`);
      if (node !== root) line = source.position(node)?.line;
    }
  }
  const where = `${file}${line ? `:${line}` : ''}${field ? ` (field ${field})` : ''}`;
  return fail('input.invalid', `${where}: ${parsed.error.message}`, { location: line ? `${file}:${line}` : file });
}
