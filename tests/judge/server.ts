/**
 * A local judge server on 127.0.0.1 that speaks both wire protocols
 * (OpenAI chat completions and Anthropic Messages). Each test scripts its
 * replies; the server records every request and the peak number in flight.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
  at: number;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** An object is sent as JSON. */
  body?: unknown;
  /** Wait before answering; `'hold'` never answers (until the client goes away). */
  delayMs?: number | 'hold';
}

export type Responder = (request: RecordedRequest, index: number) => Reply | Promise<Reply>;

export interface JudgeServer {
  url: string;
  requests: RecordedRequest[];
  maxInFlight: number;
  inFlight: number;
  /** Requests the client abandoned before the answer (cancel, timeout). */
  abandoned: number;
  respond(responder: Responder): void;
  /** Resolves when `n` requests have arrived. */
  waitForRequests(n: number): Promise<void>;
  close(): Promise<void>;
}

export interface ServerOptions {
  /**
   * Answer CORS preflights and allow any origin (default true), as a judge
   * endpoint a browser page may call must; false makes a browser's fetch fail
   * the way a CORS refusal does.
   */
  cors?: boolean;
}

const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers':
    'content-type, authorization, x-api-key, anthropic-version, anthropic-dangerous-direct-browser-access',
};

export async function startJudgeServer(options: ServerOptions = {}): Promise<JudgeServer> {
  const cors = options.cors ?? true;
  let responder: Responder = () => ({ status: 500, body: { error: 'no responder scripted' } });
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const state = {
    requests: [] as RecordedRequest[],
    maxInFlight: 0,
    inFlight: 0,
    abandoned: 0,
  };

  const server = http.createServer((req, res) => {
    if (req.method === 'OPTIONS') {
      res.writeHead(cors ? 204 : 404, cors ? CORS_HEADERS : {});
      res.end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        state.inFlight += 1;
        state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
        let done = false;
        res.on('close', () => {
          if (!done) {
            done = true;
            state.inFlight -= 1;
            if (!res.writableFinished) state.abandoned += 1;
          }
        });
        const text = Buffer.concat(chunks).toString('utf8');
        const recorded: RecordedRequest = {
          path: req.url ?? '',
          headers: req.headers,
          body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
          at: Date.now(),
        };
        const index = state.requests.push(recorded) - 1;
        for (const waiter of waiters.filter((w) => state.requests.length >= w.n)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
        const reply = await responder(recorded, index);
        if (reply.delayMs === 'hold') return;
        if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs as number));
        if (res.destroyed) return;
        const body = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {});
        res.writeHead(reply.status ?? 200, {
          'content-type': 'application/json',
          ...(cors ? CORS_HEADERS : {}),
          ...reply.headers,
        });
        res.end(body);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return state.requests;
    },
    get maxInFlight() {
      return state.maxInFlight;
    },
    get inFlight() {
      return state.inFlight;
    },
    get abandoned() {
      return state.abandoned;
    },
    respond(next) {
      responder = next;
    },
    waitForRequests(n) {
      if (state.requests.length >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port nothing listens on: bind, read the port, close. */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
