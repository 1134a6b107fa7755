import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig, type Plugin } from 'vite';

/**
 * Only this origin, plus 'wasm-unsafe-eval' so the engines can compile their
 * wasm (without it instantiate() hangs). connect-src 'self' also stops SQL
 * from reading other origins. A judge endpoint, when configured, is added to
 * connect-src by whoever deploys it.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
].join('; ');

/**
 * The built page carries the policy in a <meta> tag so any static host
 * applies it; `public/_headers` carries it for hosts that read that file
 * (it also covers the workers, which a <meta> tag cannot). The dev server
 * sends none: its injected styles and HMR need what the policy forbids.
 */
function contentSecurityPolicy(): Plugin {
  return {
    name: 'sql-verdict:csp',
    apply: 'build',
    buildStart() {
      const headers = readFileSync(new URL('./public/_headers', import.meta.url), 'utf8');
      if (!headers.includes(`Content-Security-Policy: ${CONTENT_SECURITY_POLICY}`))
        this.error('public/_headers does not carry the Content-Security-Policy of vite.config.ts: keep them identical.');
    },
    transformIndexHtml: {
      order: 'pre',
      handler: () => [{ tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: CONTENT_SECURITY_POLICY }, injectTo: 'head-prepend' }],
    },
  };
}

/**
 * Emits sw.js: the service worker of src/ui/sw-template.js with the list of
 * every file of the build (page, workers, wasm, built-in fixtures, lazily
 * loaded views and their CSS) and of public/ (icons, web manifest) to cache
 * on install, so the app works offline right after the first visit.
 */
function serviceWorker(): Plugin {
  return {
    name: 'sql-verdict:service-worker',
    apply: 'build',
    generateBundle(_options, bundle) {
      const publicFiles = readdirSync(new URL('./public/', import.meta.url), { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile() && e.name !== '_headers')
        .map((e) => path.relative(fileURLToPath(new URL('./public/', import.meta.url)), path.join(e.parentPath, e.name)).split(path.sep).join('/'));
      const assets = [...new Set([...Object.keys(bundle), ...publicFiles])]
        .filter((f) => !f.endsWith('.map') && f !== 'index.html')
        .map((f) => `./${f}`)
        .sort();
      const version = createHash('sha256').update(assets.join('\n')).digest('hex').slice(0, 16);
      const template = readFileSync(new URL('./src/ui/sw-template.js', import.meta.url), 'utf8');
      const source = template.replace('/* global __ASSETS__, __VERSION__ */\n', '').replace('__ASSETS__', JSON.stringify(assets)).replace('__VERSION__', JSON.stringify(version));
      this.emitFile({ type: 'asset', fileName: 'sw.js', source });
    },
  };
}

export default defineConfig({
  // Relative asset URLs: the built app also works under a sub-path.
  base: './',
  plugins: [svelte(), contentSecurityPolicy(), serviceWorker()],
  worker: { format: 'es' },
  build: {
    target: 'es2022',
    // Never inline assets as data: URLs (the CSP allows only this origin).
    assetsInlineLimit: 0,
    // The DuckDB wasm is 34 MB by nature; JS chunks stay well below this.
    chunkSizeWarningLimit: 2048,
  },
  preview: {
    // The same headers as public/_headers, for `npm start`.
    headers: { 'Content-Security-Policy': CONTENT_SECURITY_POLICY, 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' },
  },
});
