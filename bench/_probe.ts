import { openEngine } from '/work/wt/harden2/src/engines/node.ts';
import { sqlFixture } from '/work/wt/harden2/tests/helpers/fixtures.ts';
for (const name of ['duckdb', 'sqlite'] as const) {
  const e = openEngine(name);
  const l = await e.load(sqlFixture('t', 'CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1), (2);'));
  if (!l.ok) throw new Error(l.error.message);
  const big = name === 'duckdb' ? "SELECT repeat('x', 8192) AS s FROM range(1000000)" : "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 1000000) SELECT n, printf('%.*c', 8192, 'x') AS s FROM r";
  let t = performance.now();
  const o = await e.execute(big, { timeoutMs: 60000 });
  console.log(name, (performance.now() - t).toFixed(0), 'ms', JSON.stringify(o.ok ? o.value.rows.length : o.error));
  const o2 = await e.execute(big, { timeoutMs: 60000, maxResultBytes: 1 << 20 });
  console.log(name, JSON.stringify(o2.ok ? o2.value.rows.length : o2.error));
  t = performance.now();
  for (let i = 0; i < 200; i++) await e.execute('SELECT a, a + 1 FROM t');
  console.log(name, 'small x200', (performance.now() - t).toFixed(0), 'ms', 'rss', (process.memoryUsage().rss / 2 ** 20).toFixed(0));
  const n = await e.execute('SELECT count(*) FROM t');
  console.log(JSON.stringify(n.ok ? n.value.rows : n.error), 'restarts', e.restarts);
  await e.close();
}
