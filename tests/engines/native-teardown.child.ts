/**
 * Child process of duckdb-native-verdicts.test.ts (run with `node --import tsx`): native DuckDB engine threads
 * ended while their node-api calls are in flight, the two ways `sql-verdict run` ends them. A thread ended so
 * used to abort the whole process at exit ("terminate called after throwing an instance of 'Napi::Error'",
 * exit 134); this process must print "ok" and exit 0.
 *   - close() right after load(): the warm spare is still starting (instance creation and its first queries);
 *   - a runaway with no cancel grace: its host is ended with the interrupted query still in flight, and close()
 *     comes while the replacement host starts.
 */
import { openEngine } from '../../src/engines/node.ts';
import { sqlFixture } from '../helpers/fixtures.ts';

const ROUNDS = Number(process.argv[2] ?? 2);
const fixture = sqlFixture('items', 'CREATE TABLE items AS SELECT range AS id FROM range(1000);');
const RUNAWAY = 'SELECT sum(a.range * b.range) FROM range(1000000) a, range(1000000) b';

for (let round = 0; round < ROUNDS; round++) {
  // Round 0 keeps a warm spare (still starting at close()); round 1 none: its killed host's replacement is.
  const engine = openEngine('duckdb', { warmSpare: round % 2 === 0, cancelGraceMs: 0, duckdbDriver: 'native' });
  const loaded = await engine.load(fixture);
  if (!loaded.ok) throw new Error(loaded.error.message);
  const version = await engine.version();
  if (!/native/.test(version)) throw new Error(`not native DuckDB: ${version}`);
  if (round % 2 === 1) {
    const stopped = await engine.execute(RUNAWAY, { timeoutMs: 300 });
    if (stopped.ok || stopped.error.code !== 'sandbox.timeout')
      throw new Error(`no timeout: ${JSON.stringify(stopped)}`);
  }
  await engine.close();
  if (engine.liveHosts !== 0) throw new Error(`${engine.liveHosts} host(s) left after close()`);
}
process.stdout.write('ok\n');
process.exit(0);
