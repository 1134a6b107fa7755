/**
 * The module graph of src/ has no circles: a layer reads the layers below it, and
 * a shape two modules share lives in a leaf module (diagnose/types.ts,
 * neighbours/types.ts, judge/provider-types.ts, report/warning.ts...). Static
 * imports and re-exports count, type-only ones too (they tie the modules'
 * meanings together just the same); a dynamic import() is a deliberate lazy
 * edge and does not.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/paths.ts';

const SRC = path.join(repoRoot, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|svelte)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Modules (not assets: CSS, ?url) named by the file's static relative imports and re-exports (a .svelte file: its scripts). */
function importsOf(file: string): string[] {
  let text = readFileSync(file, 'utf8');
  if (file.endsWith('.svelte'))
    text = [...text.matchAll(/<script[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]).join('\n');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const out: string[] = [];
  for (const statement of source.statements) {
    const specifier =
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier
        ? statement.moduleSpecifier
        : null;
    if (specifier && ts.isStringLiteral(specifier) && /^\..*\.(ts|svelte|js)$/.test(specifier.text))
      out.push(path.resolve(path.dirname(file), specifier.text));
  }
  return out;
}

/** Strongly connected components with more than one module (or a module importing itself): Tarjan's algorithm. */
function circles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w);
      component.push(path.relative(repoRoot, w));
      if (w === v) break;
    }
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('the module graph of src/', () => {
  const graph = new Map(sourceFiles(SRC).map((file) => [file, importsOf(file)]));

  it('is read whole (every relative module import names a file of src/)', () => {
    expect(graph.size).toBeGreaterThan(200);
    const missing = [...graph].flatMap(([file, imports]) =>
      imports.filter((target) => !graph.has(target)).map((target) => `${path.relative(repoRoot, file)} -> ${target}`),
    );
    expect(missing).toEqual([]);
  });

  it('has no import circle', () => {
    expect(circles(graph)).toEqual([]);
  });
});
