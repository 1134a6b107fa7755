/**
 * The module graph of src/ has no circles: a layer reads the layers below it, and
 * a shape two modules share lives in a leaf module (diagnose/types.ts,
 * neighbours/types.ts, judge/provider-types.ts, report/warning.ts...). Static
 * imports and re-exports count, type-only ones too (they tie the modules'
 * meanings together just the same); a dynamic import() is a deliberate lazy
 * edge and does not.
 *
 * The page's own script (src/ui/main.ts and what it imports for its values) reaches
 * no SQL parser, YAML reader or engine: those run in the app worker, and a stray
 * import of a constant once put node-sql-parser and yaml in the page's first paint
 * (106.6 → 292.7 KiB gzipped).
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

/** Packages the page must not load itself (the workers do). */
const WORKER_ONLY_PACKAGES = ['node-sql-parser', 'yaml', 'sql.js', '@duckdb/duckdb-wasm', '@electric-sql/pglite'];

/** The modules and packages a file imports for their values (import type and type-only re-exports left out). */
function valueImportsOf(file: string): { modules: string[]; packages: string[] } {
  let text = readFileSync(file, 'utf8');
  if (file.endsWith('.svelte'))
    text = [...text.matchAll(/<script[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]).join('\n');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const modules: string[] = [];
  const packages: string[] = [];
  for (const statement of source.statements) {
    let specifier: ts.Expression | undefined;
    if (ts.isImportDeclaration(statement) && !statement.importClause?.isTypeOnly) specifier = statement.moduleSpecifier;
    if (ts.isExportDeclaration(statement) && !statement.isTypeOnly) specifier = statement.moduleSpecifier;
    if (!specifier || !ts.isStringLiteral(specifier)) continue;
    if (/^\..*\.(ts|svelte|js)$/.test(specifier.text)) modules.push(path.resolve(path.dirname(file), specifier.text));
    else if (!specifier.text.startsWith('.')) packages.push(specifier.text);
  }
  return { modules, packages };
}

/** Each worker-only package the page's script reaches, with the chain of imports that brings it. */
function pageReaches(entry: string): string[] {
  const from = new Map<string, string | null>([[entry, null]]);
  const queue = [entry];
  const found: string[] = [];
  while (queue.length > 0) {
    const file = queue.shift()!;
    const { modules, packages } = valueImportsOf(file);
    for (const name of packages) {
      if (!WORKER_ONLY_PACKAGES.some((p) => name === p || name.startsWith(`${p}/`))) continue;
      const chain = [name];
      for (let at: string | null | undefined = file; at; at = from.get(at)) chain.unshift(path.relative(repoRoot, at));
      found.push(chain.join(' -> '));
    }
    for (const next of modules)
      if (!from.has(next)) {
        from.set(next, file);
        queue.push(next);
      }
  }
  return found;
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

  it("keeps the parser, the YAML reader and the engines out of the page's own script (they run in the workers)", () => {
    expect(pageReaches(path.join(SRC, 'ui', 'main.ts'))).toEqual([]);
  });
});
