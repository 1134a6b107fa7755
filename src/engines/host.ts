/**
 * The engine host: what an engine worker exposes through comlink. It owns
 * one session and turns anything thrown into data, so nothing user-supplied
 * throws across the worker boundary.
 */
import {
  thrownExecution,
  type EngineName,
  type ExecuteOutcome,
  type FixtureInfo,
  type FixtureSource,
} from '../core/engine.ts';
import { fail, messageOf, type Outcome } from '../core/errors.ts';
import type { EngineHostApi, EngineSession, HostExecuteOptions, HostSettings } from './host-api.ts';

export type SessionFactory = (
  engine: EngineName,
  settings: HostSettings,
) => Promise<{ session: EngineSession; canCancel: boolean; drainBeforeEnd?: boolean }>;

export function createHostApi(createSession: SessionFactory): EngineHostApi {
  let session: EngineSession | null = null;
  // A session being created: dispose() waits for it (its native calls are in flight; see EngineSession.dispose).
  let creating: Promise<unknown> | null = null;
  const need = (): EngineSession => {
    if (!session) throw new Error('engine host used before init()');
    return session;
  };
  return {
    async init(engine: EngineName, settings: HostSettings) {
      const pending = createSession(engine, settings);
      creating = pending;
      const created = await pending;
      session = created.session;
      return {
        version: await session.version(),
        canCancel: created.canCancel,
        ...(created.drainBeforeEnd ? { drainBeforeEnd: true } : {}),
      };
    },
    version: () => need().version(),
    async load(fixture: FixtureSource): Promise<Outcome<FixtureInfo>> {
      try {
        // Sent right behind init (SupervisedEngine's preload): the session is created first.
        await creating;
        return await need().load(fixture);
      } catch (thrown) {
        return fail('fixture.load_failed', messageOf(thrown), { raw: messageOf(thrown) });
      }
    },
    async execute(sql: string, options: HostExecuteOptions): Promise<ExecuteOutcome> {
      try {
        return await need().execute(String(sql), options);
      } catch (thrown) {
        return thrownExecution(thrown);
      }
    },
    async explain(sql: string, options?: { analyze?: boolean }) {
      try {
        return await need().explain(String(sql), { analyze: options?.analyze === true });
      } catch (thrown) {
        return fail('execution.error', messageOf(thrown));
      }
    },
    async contentDigest() {
      try {
        return await need().contentDigest();
      } catch (thrown) {
        return fail('execution.error', messageOf(thrown));
      }
    },
    async sandboxState() {
      try {
        return await need().sandboxState();
      } catch (thrown) {
        return fail('execution.error', messageOf(thrown));
      }
    },
    cancel: () => (session ? session.cancel() : Promise.resolve(false)),
    dispose: async () => {
      await creating?.catch(() => undefined);
      await session?.dispose?.();
      session = null;
    },
  };
}
