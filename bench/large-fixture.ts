/**
 * A larger fixture: the retail schema (customers, products, orders, order_items) generated at N order lines
 * (default 10^6; 10^7 on purpose), written as CSV files one line at a time (deterministic: an LCG, the same files
 * for the same N), then, for each DuckDB engine, one child process that loads the fixture and runs the reference
 * SQL of the 64 execution goldens (fixtures/corpora/execution_goldens.yaml) on it: load time, query time, how many
 * answered, peak RSS of the whole process (its engine thread included) by /usr/bin/time. The products are the
 * built-in retail fixture's 30; order timestamps cover 2023-07 to 2025-12, so both golden fixtures' questions
 * (retail as of 2025-06-30, retail_monthly over 2024-2025) find data. CSV columns are typed by DuckDB's
 * detection (prices are DOUBLE here, DECIMAL(10,2) in the built-in dumps): the figures are times, not verdicts.
 *
 *   node --import tsx bench/large-fixture.ts [--lines 1000000] [--engines wasm,native] [--memory-limit 1GB] [--keep]
 *   npm run bench -- --only large-fixture [--lines N]
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..');
const TABLES = ['customers', 'products', 'orders', 'order_items'] as const;
/** One child's budget: past it the child is killed and the engine reported as not finishing. */
const CHILD_BUDGET_MS = Number(process.env.BENCH_CHILD_BUDGET_MS) || 40 * 60_000;

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

const csvCell = (v: string | number | null) =>
  v === null ? '' : typeof v === 'number' ? String(v) : /[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;

/** The built-in retail fixture's product rows (SQL tuples → cells). */
function retailProducts(): (string | number | null)[][] {
  const sql = readFileSync(path.join(repo, 'fixtures/retail.sql'), 'utf8');
  const section = sql.slice(sql.indexOf('CREATE TABLE products'), sql.indexOf('CREATE TABLE orders'));
  return section
    .split('\n')
    .filter((l) => l.startsWith('  ('))
    .map((l) =>
      [...l.matchAll(/'((?:[^']|'')*)'|NULL|-?\d+(?:\.\d+)?/g)].map((m) =>
        m[0] === 'NULL' ? null : m[1] !== undefined ? m[1].replace(/''/g, "'") : Number(m[0]),
      ),
    );
}

class CsvFile {
  private readonly out;
  rows = 0;
  constructor(
    readonly file: string,
    header: string[],
  ) {
    this.out = createWriteStream(file);
    this.out.write(header.join(',') + '\n');
  }
  async row(cells: (string | number | null)[]): Promise<void> {
    this.rows++;
    if (!this.out.write(cells.map(csvCell).join(',') + '\n')) await once(this.out, 'drain');
  }
  async close(): Promise<void> {
    this.out.end();
    await once(this.out, 'finish');
  }
}

const pad = (n: number) => String(n).padStart(2, '0');
const timestampText = (ms: number) => {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
};

/** Write the fixture's four CSV files into `dir`, streaming: memory stays flat whatever N. */
export async function generateLargeRetail(dir: string, lines: number): Promise<Record<string, number>> {
  const rand = lcg(20261202);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const products = retailProducts();
  const productsCsv = new CsvFile(path.join(dir, 'products.csv'), [
    'product_id',
    'sku',
    'product_name',
    'category',
    'list_price',
    'unit_cost',
    'launched_on',
  ]);
  for (const p of products) await productsCsv.row(p);
  await productsCsv.close();

  const customerCount = Math.max(200, Math.round(lines / 50));
  const cities = [
    ['Berlin', 'DE'],
    ['München', 'DE'],
    ['Denver', 'US'],
    ['Boston', 'US'],
    ['Portland', 'US'],
    ['Bristol', 'GB'],
    ['Leeds', 'GB'],
    ['Nantes', 'FR'],
    ['Tokyo', 'JP'],
    ['Seoul', 'KR'],
    ['São Paulo', 'BR'],
    [null, 'JP'],
  ] as const;
  const customers = new CsvFile(path.join(dir, 'customers.csv'), [
    'customer_id',
    'customer_name',
    'email_masked',
    'city',
    'country_code',
    'segment',
    'loyalty_tier',
    'signup_date',
  ]);
  const day = 86_400_000;
  const signupFrom = Date.UTC(2020, 0, 1);
  for (let id = 1; id <= customerCount; id++) {
    const [city, country] = pick(cities);
    await customers.row([
      id,
      `Customer ${id}`,
      `c***@example.${pick(['com', 'org', 'net'])}`,
      city,
      country,
      pick(['consumer', 'consumer', 'business', null]),
      pick(['bronze', 'silver', 'gold', null, null]),
      timestampText(signupFrom + Math.floor(rand() * 2000) * day).slice(0, 10),
    ]);
  }
  await customers.close();

  const orders = new CsvFile(path.join(dir, 'orders.csv'), [
    'order_id',
    'customer_id',
    'order_ts',
    'status',
    'channel',
  ]);
  const items = new CsvFile(path.join(dir, 'order_items.csv'), [
    'order_id',
    'line_no',
    'product_id',
    'quantity',
    'unit_price',
    'discount',
  ]);
  // Orders in time order over 2023-07-01 .. 2025-12-31, 1.9 lines each on average.
  const from = Date.UTC(2023, 6, 1);
  const span = Date.UTC(2026, 0, 1) - from;
  const orderCount = Math.ceil(lines / 1.9);
  let written = 0;
  for (let id = 1; written < lines; id++) {
    const ts = from + Math.floor(((id - 1 + rand()) / orderCount) * span);
    const status = rand() < 0.87 ? 'completed' : pick(['cancelled', 'cancelled', 'cancelled', 'shipped', 'pending']);
    await orders.row([
      id,
      rand() < 0.02 ? null : 1 + Math.floor(rand() * customerCount),
      timestampText(Math.min(ts, from + span - 1000)),
      status,
      pick(['web', 'web', 'web', 'app', 'app', 'store', null]),
    ]);
    const r = rand();
    const count = Math.min(lines - written, r < 0.4 ? 1 : r < 0.7 ? 2 : 3);
    for (let line = 1; line <= count; line++) {
      const product = pick(products);
      const price = Number(product[4]);
      const d = rand();
      await items.row([
        id,
        line,
        product[0] as number,
        1 + Math.floor(rand() * 5),
        price,
        d < 0.3 ? null : d < 0.85 ? 0 : Math.round(price * 10) / 100,
      ]);
    }
    written += count;
  }
  await orders.close();
  await items.close();
  return { customers: customers.rows, products: productsCsv.rows, orders: orders.rows, order_items: items.rows };
}

interface ChildResult {
  engine: string;
  version: string;
  loadSeconds: number;
  loadError?: string;
  queries: number;
  answered: number;
  querySeconds: number;
  errors: Record<string, number>;
  slowest: { id: string; seconds: number }[];
}

/** In the child: load the CSV files on one engine and run the 64 goldens' reference SQL. */
async function child(dir: string, driver: 'wasm' | 'native', memoryLimit: string): Promise<void> {
  const { openEngine } = await import('../src/engines/node.ts');
  const { loadCorpus } = await import('../src/core/corpus/load-corpus.ts');
  const corpusFile = 'fixtures/corpora/execution_goldens.yaml';
  const corpus = await loadCorpus(new Uint8Array(readFileSync(path.join(repo, corpusFile))), { file: corpusFile });
  if (!corpus.ok) throw new Error(JSON.stringify(corpus.problems));
  const engine = openEngine('duckdb', {
    duckdbDriver: driver,
    memoryLimit,
    warmSpare: false,
    loadTimeoutMs: CHILD_BUDGET_MS,
  });
  const result: ChildResult = {
    engine: driver,
    version: '',
    loadSeconds: 0,
    queries: 0,
    answered: 0,
    querySeconds: 0,
    errors: {},
    slowest: [],
  };
  try {
    result.version = await engine.version();
    const t0 = performance.now();
    const loaded = await engine.load({
      name: 'retail_large',
      asOf: '2026-01-01T06:00:00Z',
      files: TABLES.map((t) => ({
        fileName: `${t}.csv`,
        format: 'csv' as const,
        bytes: new Uint8Array(readFileSync(path.join(dir, `${t}.csv`))),
      })),
    });
    result.loadSeconds = (performance.now() - t0) / 1000;
    if (!loaded.ok) {
      result.loadError = `${loaded.error.code}: ${loaded.error.message.slice(0, 300)}`;
      return;
    }
    const times: { id: string; seconds: number }[] = [];
    for (const c of corpus.loaded.corpus.cases) {
      if (!c.referenceSql) continue;
      result.queries++;
      const q0 = performance.now();
      const out = await engine.execute(c.referenceSql, { timeoutMs: 600_000, maxRows: 10_000_000 });
      const seconds = (performance.now() - q0) / 1000;
      result.querySeconds += seconds;
      times.push({ id: c.id, seconds });
      if (out.ok) result.answered++;
      else result.errors[out.error.code] = (result.errors[out.error.code] ?? 0) + 1;
    }
    result.slowest = times.sort((a, b) => b.seconds - a.seconds).slice(0, 3);
  } finally {
    await engine.close();
    process.stdout.write(`${JSON.stringify(result)}\n`);
  }
}

interface Measured {
  seconds: number;
  maxRssKiB: number | null;
  code: number | null;
  killed: boolean;
  result: ChildResult | null;
  stderr: string;
}

function measure(args: string[]): Promise<Measured> {
  const gnuTime = existsSync('/usr/bin/time');
  const [cmd, argv] = gnuTime ? ['/usr/bin/time', ['-v', process.execPath, ...args]] : [process.execPath, args];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const proc = spawn(cmd, argv, { cwd: repo, env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    let killed = false;
    const budget = setTimeout(() => {
      killed = true;
      proc.kill('SIGKILL');
    }, CHILD_BUDGET_MS);
    proc.stdout.on('data', (d) => (stdout += d));
    proc.stderr.on('data', (d) => (stderr += d));
    proc.on('error', reject);
    proc.on('close', (code) => {
      clearTimeout(budget);
      const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
      const line = stdout.trim().split('\n').pop() ?? '';
      let result: ChildResult | null = null;
      try {
        result = JSON.parse(line) as ChildResult;
      } catch {
        /* the child died before it answered */
      }
      resolve({
        seconds: (performance.now() - started) / 1000,
        maxRssKiB: rss ? Number(rss[1]) : null,
        code,
        killed,
        result,
        stderr,
      });
    });
  });
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');

export async function benchLargeFixture(
  options: { lines?: number; engines?: ('wasm' | 'native')[]; memoryLimit?: string; keep?: boolean } = {},
): Promise<string[]> {
  const lines = options.lines ?? 1_000_000;
  const engines = options.engines ?? ['wasm', 'native'];
  const memoryLimit = options.memoryLimit ?? '1GB';
  const dir = mkdtempSync(path.join(tmpdir(), 'sql-verdict-large-fixture-'));
  const out: string[] = [];
  try {
    const g0 = performance.now();
    const rows = await generateLargeRetail(dir, lines);
    const bytes = TABLES.reduce((sum, t) => sum + statSync(path.join(dir, `${t}.csv`)).size, 0);
    out.push(
      `fixture: ${lines.toLocaleString('en')} order lines (${TABLES.map((t) => `${t} ${rows[t]!.toLocaleString('en')}`).join(', ')}), ` +
        `${(bytes / 2 ** 20).toFixed(0)} MiB of CSV, generated in ${((performance.now() - g0) / 1000).toFixed(1)} s`,
    );
    for (const engine of engines) {
      const before = load();
      const m = await measure(['--import', 'tsx', fileURLToPath(import.meta.url), '--child', dir, engine, memoryLimit]);
      const r = m.result;
      const rss = m.maxRssKiB === null ? '?' : `${(m.maxRssKiB / 1024).toFixed(0)} MiB`;
      const head = `${engine === 'wasm' ? 'DuckDB-WASM' : 'native DuckDB'} (memory_limit ${memoryLimit}; load average ${before} before)`;
      if (!r) {
        const why = m.killed ? `killed after ${CHILD_BUDGET_MS / 60_000} min` : `exit ${m.code}`;
        const last = m.stderr
          .split('\n')
          .filter((l) => l.trim() && !/^\s+(Command being timed|[A-Z][\w ()/:%-]+: )/.test(l))
          .slice(-2)
          .join(' | ');
        out.push(`${head}: did not finish (${why}) after ${m.seconds.toFixed(0)} s, peak RSS ${rss}: ${last}`);
        continue;
      }
      const errors = Object.entries(r.errors)
        .map(([code, n]) => `${n} ${code}`)
        .join(', ');
      out.push(
        r.loadError
          ? `${head}: load failed after ${r.loadSeconds.toFixed(1)} s (${r.loadError}); peak RSS ${rss}`
          : `${head}: load ${r.loadSeconds.toFixed(1)} s; ${r.queries} reference queries ${r.querySeconds.toFixed(1)} s ` +
              `(${r.answered} answered${errors ? `, ${errors}` : ''}; slowest ${r.slowest.map((s) => `${s.id} ${s.seconds.toFixed(2)} s`).join(', ')}); ` +
              `process ${m.seconds.toFixed(1)} s wall, peak RSS ${rss}; ${r.version}`,
      );
    }
    out.push(`load average after: ${load()}`);
  } finally {
    if (options.keep) out.push(`files kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === '--child') {
    await child(process.argv[3]!, process.argv[4] as 'wasm' | 'native', process.argv[5] ?? '1GB');
    process.exit(0);
  }
  const engines = arg('--engines')?.split(',') as ('wasm' | 'native')[] | undefined;
  const lines = await benchLargeFixture({
    lines: Number(arg('--lines') ?? 1_000_000),
    ...(engines ? { engines } : {}),
    ...(arg('--memory-limit') ? { memoryLimit: arg('--memory-limit')! } : {}),
    keep: process.argv.includes('--keep'),
  });
  console.log(lines.join('\n'));
}
