/**
 * Shared by the browser test and the browser bench: serve the production
 * build with `vite preview` on a free loopback port and drive Debian's
 * Chromium through playwright-core.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { preview, type PreviewServer } from 'vite';
import { CONTENT_SECURITY_POLICY } from '../../vite.config.ts';
import { runCli as runCliProcess } from '../helpers/cli.ts';
import { repoRoot } from '../helpers/paths.ts';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface ServedApp {
  /** Origin of the preview server, e.g. http://127.0.0.1:41234 */
  origin: string;
  close(): Promise<void>;
}

/**
 * Serve a production build (dist/ by default) as `npm start` does: same config, same headers.
 * `onRequest` hears the path of every request the server receives (what really crossed the network).
 */
export async function serveBuiltApp(outDir = 'dist', onRequest?: (path: string) => void): Promise<ServedApp> {
  if (!existsSync(path.resolve(repoRoot, outDir, 'index.html')))
    throw new Error(
      `${outDir}/index.html is missing: run \`npm run build\` first (\`npm test\` builds before running the tests).`,
    );
  const port = await freePort();
  const server: PreviewServer = await preview({
    root: repoRoot,
    logLevel: 'silent',
    build: { outDir },
    preview: { host: '127.0.0.1', port, strictPort: true, open: false },
  });
  if (onRequest) server.httpServer.prependListener('request', (req: { url?: string }) => onRequest(req.url ?? ''));
  return { origin: `http://127.0.0.1:${port}`, close: () => server.close() };
}

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(
      `Chromium is missing at ${CHROMIUM_PATH}: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH. The browser tests need it.`,
    );
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
};

/**
 * A plain static host serving `dir` under a sub-path (e.g. /team/sql-verdict/),
 * sending only the given headers: checks that the build works wherever it is put.
 */
export async function serveStatic(
  dir: string,
  prefix: string,
  headers: Record<string, string> = {},
): Promise<ServedApp> {
  const root = path.resolve(repoRoot, dir);
  const server = createHttpServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (!url.pathname.startsWith(prefix)) {
      res.writeHead(404).end();
      return;
    }
    const relative = decodeURIComponent(url.pathname.slice(prefix.length)) || 'index.html';
    const file = path.resolve(root, relative);
    if (!file.startsWith(root + path.sep)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      res
        .writeHead(200, { 'Content-Type': MIME[path.extname(file)] ?? 'application/octet-stream', ...headers })
        .end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Where `openPage` records what it sees (arrays the test keeps). */
export interface PageWatch {
  /** Uncaught errors of the page. */
  pageErrors?: string[];
  /** Requests of the page and its workers that leave `origin`. */
  foreign?: string[];
  /** Every request of the page and its workers. */
  requests?: string[];
}

/** A browser test's own timeout (vi.setConfig in each file); its waits are bounded below it. */
export const BROWSER_TEST_MS = 600_000;

/** How long a locator waits by default in these tests (Playwright's own default is 30 s). */
export const BROWSER_WAIT_MS = 120_000;

/** A fresh browser context and page that record page errors and requests leaving `origin`. */
export async function openPage(
  browser: Browser,
  origin: string,
  options: BrowserContextOptions,
  watch: PageWatch = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext(options);
  // A locator's wait covers a busy CI machine (two cores shared with the engine tests' workers): 30 s ran out
  // once for a view that shows in under a second alone. A real hang still fails, at this wait or the test's timeout.
  context.setDefaultTimeout(BROWSER_WAIT_MS);
  context.on('request', (r) => {
    watch.requests?.push(r.url());
    if (!r.url().startsWith(origin)) watch.foreign?.push(r.url());
  });
  const page = await context.newPage();
  page.on('pageerror', (e) => watch.pageErrors?.push(e.message));
  // A CSP violation (an inline style the policy blocks, say) only reaches the console.
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy/.test(m.text())) watch.pageErrors?.push(m.text());
  });
  return { context, page };
}

/** The production build with a CSP whose connect-src also lists these judge endpoints, as a deployment using a judge must. */
export function serveWithJudges(...endpoints: string[]): Promise<ServedApp> {
  const csp = CONTENT_SECURITY_POLICY.replace("connect-src 'self'", `connect-src 'self' ${endpoints.join(' ')}`);
  return serveStatic('dist', '/', { 'Content-Security-Policy': csp });
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `node bin/sql-verdict.mjs ...args` from the repository root, asynchronously (several can run beside the
 * browser's start-up), with tests/helpers/cli.ts's deadline (a hang rejects naming the command). With
 * `expectExit`, another exit status rejects with stderr's end.
 */
export async function runCli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number; expectExit?: number[] } = {},
): Promise<CliResult> {
  const env = options.env
    ? Object.fromEntries(Object.entries(options.env).filter((e): e is [string, string] => e[1] !== undefined))
    : undefined;
  const { code, stdout, stderr } = await runCliProcess(args, {
    ...(env ? { env } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  });
  if (options.expectExit && !options.expectExit.includes(code))
    throw new Error(`sql-verdict ${args.join(' ')} exited ${code}: ${stderr.slice(-2000)}`);
  return { status: code, stdout, stderr };
}
