import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig, type Plugin } from 'vite';
import { WASM_CACHE, WASM_LOCK, WASM_PROGRESS_CHANNEL } from './src/core/wasm-progress.ts';

/**
 * The AI judge endpoints a deployment lets the page reach, the one place to
 * name them: `SQL_VERDICT_JUDGE_ORIGINS="https://api.openai.com https://llm.internal:8443" npm run build`.
 * Each must be an origin (scheme, host, port; no path): it goes into connect-src
 * of the <meta> policy, of the generated _headers and of `npm start`'s headers.
 */
export function judgeOrigins(value = process.env.SQL_VERDICT_JUDGE_ORIGINS ?? ''): string[] {
  const origins = value.split(/[\s,]+/).filter(Boolean);
  for (const origin of origins) {
    let parsed: URL | null = null;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = null;
    }
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin.replace(/\/$/, ''))
      throw new Error(`SQL_VERDICT_JUDGE_ORIGINS: "${origin}" is not an origin (https://host[:port], no path).`);
  }
  return origins.map((o) => o.replace(/\/$/, ''));
}

/**
 * Only this origin, plus 'wasm-unsafe-eval' so the engines can compile their
 * wasm (without it instantiate() hangs). connect-src 'self' also stops SQL
 * from reading other origins; the judge endpoints of SQL_VERDICT_JUDGE_ORIGINS
 * are added to it, and nowhere else needs editing.
 */
export function contentSecurityPolicyFor(origins: readonly string[]): string {
  return [
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "worker-src 'self'",
    // Style attributes only (no <style>, no script): CodeMirror sets a few on its elements (tab-size, gutters).
    "style-src-attr 'unsafe-inline'",
    ['connect-src', "'self'", ...origins].join(' '),
    "object-src 'none'",
    "base-uri 'none'",
  ].join('; ');
}

export const CONTENT_SECURITY_POLICY = contentSecurityPolicyFor(judgeOrigins());

/** The response headers of every file: `npm start` sends them, and the build writes them to dist/_headers (Netlify, Cloudflare Pages). */
export const RESPONSE_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/**
 * The built page carries the policy in a <meta> tag so any static host
 * applies it; the generated `_headers` carries it for hosts that read that
 * file (it also covers the workers, which a <meta> tag cannot). The dev
 * server sends none: its injected styles and HMR need what the policy forbids.
 */
function contentSecurityPolicy(): Plugin {
  return {
    name: 'sql-verdict:csp',
    apply: 'build',
    generateBundle() {
      const lines = Object.entries(RESPONSE_HEADERS).map(([k, v]) => `  ${k}: ${v}`);
      this.emitFile({ type: 'asset', fileName: '_headers', source: `/*\n${lines.join('\n')}\n` });
    },
    transformIndexHtml: {
      order: 'pre',
      handler: () => [
        {
          tag: 'meta',
          attrs: { 'http-equiv': 'Content-Security-Policy', content: CONTENT_SECURITY_POLICY },
          injectTo: 'head-prepend',
        },
      ],
    },
  };
}

/**
 * Emits sw.js: the service worker of src/ui/sw-template.js with the list of
 * every file of the build (page, workers, wasm, built-in fixtures, lazily
 * loaded views and their CSS) and of public/ (icons, web manifest) to cache
 * on install, so the app works offline right after the first visit. The
 * DuckDB wasm is listed apart (__ONCE__): it is fetched once into its own cache,
 * by DuckDB's worker or the service worker, whichever asks first.
 */
function serviceWorker(): Plugin {
  return {
    name: 'sql-verdict:service-worker',
    apply: 'build',
    generateBundle(_options, bundle) {
      const publicFiles = readdirSync(new URL('./public/', import.meta.url), { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile() && e.name !== '_headers')
        .map((e) =>
          path
            .relative(fileURLToPath(new URL('./public/', import.meta.url)), path.join(e.parentPath, e.name))
            .split(path.sep)
            .join('/'),
        );
      const all = [...new Set([...Object.keys(bundle), ...publicFiles])]
        .filter((f) => !f.endsWith('.map') && f !== 'index.html' && f !== '_headers')
        .map((f) => `./${f}`)
        .sort();
      const once = all.filter((f) => /^\.\/assets\/duckdb-eh-[^/]*\.wasm$/.test(f));
      if (once.length !== 1) throw new Error(`sw.js: expected one DuckDB eh wasm in the build, found ${once.length}`);
      const assets = all.filter((f) => !once.includes(f));
      const version = createHash('sha256').update(all.join('\n')).digest('hex').slice(0, 16);
      const template = readFileSync(new URL('./src/ui/sw-template.js', import.meta.url), 'utf8');
      const values: Record<string, unknown> = {
        __ASSETS__: assets,
        __VERSION__: version,
        __ONCE__: once,
        __WASM_CACHE__: WASM_CACHE,
        __WASM_LOCK__: WASM_LOCK,
        __WASM_CHANNEL__: WASM_PROGRESS_CHANNEL,
      };
      let source = template.replace(/\/\* global __[^\n]*\*\/\n/, '');
      for (const [name, value] of Object.entries(values))
        source = source.replace(`= ${name};`, `= ${JSON.stringify(value)};`);
      if (/__[A-Z_]+__/.test(source))
        throw new Error(`sw.js: a placeholder was left unfilled: ${/__[A-Z_]+__/.exec(source)![0]}`);
      this.emitFile({ type: 'asset', fileName: 'sw.js', source });
    },
  };
}

/**
 * DuckDB's worker script is imported for its side effects by our wrapper
 * (src/engines/duckdb/duckdb-eh.worker.ts), but its package says
 * `"sideEffects": false`, so the bundler would drop it: keep it.
 */
function duckDbWorkerScript(): Plugin {
  return {
    name: 'sql-verdict:duckdb-worker-script',
    transform(code, id) {
      if (/duckdb-wasm[\\/]dist[\\/]duckdb-browser-eh\.worker\.js$/.test(id))
        return { code, map: null, moduleSideEffects: true };
      return null;
    },
  };
}

export default defineConfig({
  // Relative asset URLs: the built app also works under a sub-path.
  base: './',
  plugins: [svelte(), contentSecurityPolicy(), serviceWorker()],
  worker: { format: 'es', plugins: () => [duckDbWorkerScript()] },
  build: {
    target: 'es2022',
    // Never inline assets as data: URLs (the CSP allows only this origin).
    assetsInlineLimit: 0,
    // The DuckDB wasm is 34 MB by nature; JS chunks stay well below this.
    chunkSizeWarningLimit: 2048,
  },
  preview: {
    // The same headers as dist/_headers, for `npm start`.
    headers: RESPONSE_HEADERS,
  },
});
