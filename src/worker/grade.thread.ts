/**
 * A grading worker thread (see src/engines/grading-pool.ts): whole cases,
 * parse to diagnosis, on engines that live in this thread (one sql.js
 * module, one Database per fixture), so no message per query. Requests are
 * handled one at a time, in the order they arrive.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { EngineName, FixtureSource } from '../core/engine.ts';
import { fail, messageOf, ok, type Outcome } from '../core/errors.ts';
import { gradeCaseOn } from '../core/run/case-grader.ts';
import { ExecutionCache } from '../core/run/execution-cache.ts';
import { InThreadEngine, QueryWatch, type StoppedHow } from '../engines/in-thread.ts';
import type { GradeWorkerData, ToPool, ToWorker } from '../engines/grading-protocol.ts';
import { createNodeSession, useSqlJsModule } from '../engines/node-sessions.ts';
import { prettyJson } from '../core/report/pretty-json.ts';
import { mark } from '../engines/timeline.ts';

mark('grading thread: modules loaded');

const data = workerData as GradeWorkerData;
const port = parentPort!;
const watch = new QueryWatch(data.watch);
const stopped = new Map<string, StoppedHow>(data.stopped);
const cache = new ExecutionCache();
const sources = new Map<string, FixtureSource>();
const engines = new Map<string, Promise<Outcome<{ engine: InThreadEngine; digest: string }>>>();
if (data.sqlJsWasm) useSqlJsModule(data.sqlJsWasm);

async function open(name: string): Promise<Outcome<{ engine: InThreadEngine; digest: string }>> {
  const source = sources.get(name);
  if (!source) return fail('fixture.not_loaded', `Fixture ${name} was not sent to this worker.`);
  mark(`fixture ${name}: creating the session`);
  const { session } = await createNodeSession(data.engine as EngineName, data.settings ?? {});
  mark(`fixture ${name}: session created`);
  const engine = new InThreadEngine(data.engine, session, watch, stopped);
  const loaded = await engine.load(source);
  mark(`fixture ${name}: loaded`);
  // The bytes now live in the engine.
  sources.delete(name);
  if (!loaded.ok) return fail(loaded.error.code, `Fixture ${name}: ${loaded.error.message}`, { location: name });
  return ok({ engine, digest: loaded.value.contentDigest });
}

function engineFor(name: string): Promise<Outcome<{ engine: InThreadEngine; digest: string }>> {
  let pending = engines.get(name);
  if (!pending) {
    pending = open(name).catch((thrown: unknown) =>
      fail('fixture.load_failed', `Fixture ${name}: ${messageOf(thrown)}`),
    );
    engines.set(name, pending);
  }
  return pending;
}

async function handle(message: ToWorker): Promise<ToPool | null> {
  switch (message.type) {
    case 'fixture':
      sources.set(message.name, message.source);
      return null;
    case 'stopped':
      for (const [key, how] of message.entries) stopped.set(key, how);
      return null;
    case 'grade': {
      const opened = await engineFor(message.c.fixture);
      if (!opened.ok) return { type: 'graded', job: message.job, graded: null };
      const engine = cache.wrap(opened.value.engine, opened.value.digest);
      const { report, ...rest } = await gradeCaseOn(message.c, message.sql, engine, message.config, message.dialect);
      return {
        type: 'graded',
        job: message.job,
        graded: { report: prettyJson(report, data.printIndent ?? ''), rest: JSON.stringify(rest) },
      };
    }
    case 'call': {
      const opened = await engineFor(message.fixture);
      if (!opened.ok) return { type: 'called', job: message.job, value: opened };
      const engine = opened.value.engine;
      // The self-check's references go through the cache the cases read: each runs once.
      const value =
        message.method === 'execute'
          ? await cache.wrap(engine, opened.value.digest).execute(message.sql ?? '', message.options)
          : message.method === 'explain'
            ? await engine.explain(message.sql ?? '', message.options)
            : message.method === 'digest'
              ? await engine.contentDigest()
              : ok(engine.fixture);
      return { type: 'called', job: message.job, value };
    }
  }
}

let queue: Promise<unknown> = Promise.resolve();
port.on('message', (message: ToWorker) => {
  queue = queue.then(async () => {
    try {
      const reply = await handle(message);
      if (reply) port.postMessage(reply);
    } catch (thrown) {
      if ('job' in message)
        port.postMessage({ type: 'failed', job: message.job, message: messageOf(thrown) } satisfies ToPool);
    }
  });
});
port.postMessage({ type: 'ready' } satisfies ToPool);
