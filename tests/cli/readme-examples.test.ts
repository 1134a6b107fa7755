/**
 * The README's command-line examples run as written: every `npx sql-verdict …`
 * line of its shell and console blocks runs (in order, in one temporary folder
 * that sees the repository's fixtures/ and tests/ as a clone does), a stated
 * exit status (`# exit 2`) holds and no other is refused as bad input (exit 2), and
 * the output a console block shows is what the command prints (timings and
 * the parts elided with … aside).
 */
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { runCliSync } from '../helpers/cli.ts';
import { repoRoot } from '../helpers/paths.ts';

interface Example {
  command: string;
  /** Expected output lines (console blocks). */
  output: string[];
  exit: number | null;
  line: number;
}

/** The `npx sql-verdict` commands of the README's sh/console blocks, with the output and exit status they show. */
function examples(markdown: string): Example[] {
  const out: Example[] = [];
  const lines = markdown.split('\n');
  let lang: string | null = null;
  let current: Example | null = null;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const fence = /^```(\w*)/.exec(raw);
    if (fence) {
      lang = lang === null ? fence[1]! : null;
      current = null;
      continue;
    }
    if (lang !== 'sh' && lang !== 'console') continue;
    const text = lang === 'console' && raw.startsWith('$ ') ? raw.slice(2) : raw;
    if (text.startsWith('npx sql-verdict ') && (lang === 'sh' || raw.startsWith('$ '))) {
      let command = text;
      while (command.trimEnd().endsWith('\\')) command = `${command.trimEnd().slice(0, -1)} ${lines[++i]!.trim()}`;
      const exit = /#\s*exit (\d)/.exec(command);
      command = command.replace(/\s+#.*$/, '');
      current = { command, output: [], exit: exit ? Number(exit[1]) : null, line: i + 1 };
      out.push(current);
    } else if (lang === 'console' && current && raw.trim() !== '') current.output.push(raw);
  }
  return out;
}

/** Shell-like words: single and double quotes group. */
function words(command: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(command); m; m = re.exec(command))
    out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? m[3]!));
  return out;
}

const work = mkdtempSync(path.join(tmpdir(), 'readme-examples-'));
// As in a clone: the examples name files under fixtures/ and tests/.
symlinkSync(path.join(repoRoot, 'fixtures'), path.join(work, 'fixtures'));
symlinkSync(path.join(repoRoot, 'tests'), path.join(work, 'tests'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const found = examples(readFileSync(path.join(repoRoot, 'README.md'), 'utf8'));

describe('README examples run as written', () => {
  test('the README has command-line examples', () => {
    expect(found.length).toBeGreaterThanOrEqual(5);
  });

  test.each(found.map((e) => [`README.md:${e.line} ${e.command.slice(0, 70)}`, e] as const))(
    '%s',
    (_, example) => {
      const argv = words(example.command).slice(2);
      const r = runCliSync(argv, { cwd: work });
      expect(r.code, r.stderr).not.toBe(-1);
      if (example.exit !== null) expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(example.exit);
      else expect(r.code, `exit ${r.code}: ${r.stderr}`).not.toBe(2);
      for (const line of example.output) {
        // Timings differ run to run; "…" elides part of a line.
        if (/\d+(\.\d+)? ms$/.test(line.trim())) continue;
        for (const part of line
          .split('…')
          .map((p) => p.trim())
          .filter((p) => p.length > 3))
          expect(r.stdout, `README line "${line}"`).toContain(part);
      }
    },
    300_000,
  );
});
