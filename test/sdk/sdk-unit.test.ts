/**
 * Unit tests of the SDK against a tiny local node:http server that answers canned envelopes and
 * event streams: error mapping, retries and idempotency keys, configuration, SSE parsing, transport
 * failures and uploads. The real server is exercised by the end-to-end tests.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  type ClientOptions,
  ConflictError,
  DEFAULT_BASE_URL,
  DocumentFailedError,
  type ErrorCode,
  GenerationStreamError,
  type Logger,
  NotFoundError,
  operations,
  PermissionDeniedError,
  PlatformClient,
  PlatformError,
  parseServerSentEvents,
  parseStreamEvents,
  RateLimitError,
  ServerError,
  type StreamEvent,
  toFile,
} from '../../sdk/src/index';
// Seeded, so that a failing split can be replayed.
import { seededRandom } from '../helpers/zipf-text';

interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type Handler = (request: RecordedRequest, response: ServerResponse) => void | Promise<void>;

let server: Server;
let baseURL: string;
let handler: Handler;
let requests: RecordedRequest[];

beforeAll(async () => {
  server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const request = {
        method: incoming.method ?? '',
        url: incoming.url ?? '',
        headers: incoming.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(request);
      void handler(request, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(() => {
  vi.unstubAllEnvs();
});

afterAll(async () => {
  // Not between tests: closing the client's idle keep-alive sockets would fail the next request
  // with "other side closed". Requests a test leaves hanging are closed by the client's abort.
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function reset(next: Handler): void {
  requests = [];
  handler = next;
}

function makeClient(options: ClientOptions = {}): PlatformClient {
  return new PlatformClient({ apiKey: 'csk_live_test', baseURL, maxRetries: 0, ...options });
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

function envelope(status: number, code: string, extra: object = {}) {
  return { code, status, message: `canned ${code}`, ...extra };
}

const GENERATION = {
  message: { role: 'assistant', content: 'Hello!' },
  finishReason: 'stop',
  usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 },
  traceId: 'trace_01JD3Q8Z5V6W7X8Y9Z0A1B2C3D',
};

const EXECUTE_BODY = {
  providerName: 'openai' as const,
  model: 'gpt-4o-mini',
  messages: [{ role: 'user' as const, content: 'Say hello.' }],
};

/** A fetch that records each attempt the client makes, whether or not the server got to see it. */
function countingFetch(): { fetch: typeof fetch; attempts: Headers[] } {
  const attempts: Headers[] = [];
  return {
    attempts,
    fetch: (input, init) => {
      attempts.push(new Headers(init?.headers));
      return fetch(input, init);
    },
  };
}

async function expectRejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}

/** A body that delivers `chunks` one by one, as a network would. */
function bodyOf(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
      controller.close();
    },
  });
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

describe('errors', () => {
  const cases: [number, string, typeof APIError][] = [
    [400, 'VALIDATION_ERROR', BadRequestError],
    [401, 'INVALID_CREDENTIALS', AuthenticationError],
    [403, 'FORBIDDEN', PermissionDeniedError],
    [404, 'NOT_FOUND', NotFoundError],
    [409, 'IDEMPOTENCY_KEY_CONFLICT', ConflictError],
    [429, 'RATE_LIMITED', RateLimitError],
    [500, 'INTERNAL_ERROR', ServerError],
    [418, 'SOMETHING_NEW', APIError],
  ];

  it.each(cases)('maps %i to its class, with code and request id', async (status, code, ErrorClass) => {
    reset((_request, response) => sendJson(response, status, envelope(status, code), { 'x-request-id': `req_${status}` }));
    const error = await expectRejection(makeClient().knowledge.sources.retrieve('ks_1'));
    expect(error).toBeInstanceOf(ErrorClass);
    expect((error as Error).constructor).toBe(ErrorClass);
    expect(error).toBeInstanceOf(PlatformError);
    const apiError = error as APIError;
    expect(apiError.status).toBe(status);
    expect(apiError.code).toBe(code);
    expect(apiError.requestId).toBe(`req_${status}`);
    expect(apiError.headers.get('x-request-id')).toBe(`req_${status}`);
    expect(apiError.message).toContain(code);
  });

  it('maps every status of 500 and above to ServerError', async () => {
    reset((_request, response) => sendJson(response, 504, envelope(504, 'INTERNAL_ERROR')));
    const error = await expectRejection(makeClient().runtime.execute(EXECUTE_BODY));
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).code).toBe('INTERNAL_ERROR');
  });

  it('exposes the fields of a VALIDATION_ERROR', async () => {
    const fields = [{ field: 'messages', issue: 'At least one message is required' }];
    reset((_request, response) => sendJson(response, 400, envelope(400, 'VALIDATION_ERROR', { fields })));
    const error = (await expectRejection(makeClient().runtime.execute({ ...EXECUTE_BODY, messages: [] }))) as BadRequestError;
    expect(error.fields).toEqual(fields);
  });

  it('keeps a body that is not the envelope, with no code', async () => {
    reset((_request, response) => {
      response.writeHead(502, { 'content-type': 'text/html' });
      response.end('<html>Bad gateway</html>');
    });
    const error = (await expectRejection(makeClient().health())) as ServerError;
    expect(error).toBeInstanceOf(ServerError);
    expect(error.code).toBeUndefined();
    expect(error.body).toBe('<html>Bad gateway</html>');
    expect(error.requestId).toBeUndefined();
  });
});

describe('requests', () => {
  it('sends the key as a bearer token, JSON-encodes the body and parses the answer', async () => {
    reset((_request, response) => sendJson(response, 200, GENERATION));
    const result = await makeClient().runtime.execute(EXECUTE_BODY);
    expect(result).toEqual(GENERATION);
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/runtime/execute');
    expect(request.headers.authorization).toBe('Bearer csk_live_test');
    expect(request.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request.body)).toEqual(EXECUTE_BODY);
  });

  it('keeps a path prefix of the base URL and encodes path segments and the query', async () => {
    reset((_request, response) => sendJson(response, 200, { data: [], hasMore: false, nextCursor: null }));
    await makeClient({ baseURL: `${baseURL}/api/` }).knowledge.documents.list('ks/1 ?', { limit: 5, cursor: "c 1" });
    expect(requests[0].url).toBe('/api/knowledge/sources/ks%2F1%20%3F/documents?limit=5&cursor=c+1');
  });

  it('runs an assistant from its input text', async () => {
    reset((_request, response) => sendJson(response, 200, GENERATION));
    await makeClient().assistants.run('support-bot', 'Where is my order?');
    expect(requests[0].url).toBe('/runtime/assistants/support-bot');
    expect(JSON.parse(requests[0].body)).toEqual({ input: 'Where is my order?' });
  });
});

describe('retries', () => {
  it('retries a 503 and succeeds, with the same Idempotency-Key on both attempts', async () => {
    let attempts = 0;
    reset((_request, response) => {
      attempts += 1;
      if (attempts === 1) sendJson(response, 503, envelope(503, 'INTERNAL_ERROR'), { 'retry-after': '0' });
      else sendJson(response, 200, GENERATION);
    });
    const result = await makeClient({ maxRetries: 2 }).runtime.execute(EXECUTE_BODY);
    expect(result).toEqual(GENERATION);
    expect(requests).toHaveLength(2);
    const [first, second] = requests.map((request) => request.headers['idempotency-key']);
    expect(first).toEqual(expect.any(String));
    expect(second).toBe(first);
    expect(requests[1].body).toBe(requests[0].body);
  });

  it("uses the caller's idempotency key", async () => {
    reset((_request, response) => sendJson(response, 201, { id: 'ks_1' }));
    await makeClient().knowledge.sources.create({ name: 'Help center' }, { idempotencyKey: 'my-key-1' });
    expect(requests[0].headers['idempotency-key']).toBe('my-key-1');
  });

  it('does not retry a 400', async () => {
    reset((_request, response) => sendJson(response, 400, envelope(400, 'VALIDATION_ERROR')));
    const error = await expectRejection(makeClient({ maxRetries: 2 }).runtime.execute(EXECUTE_BODY));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(requests).toHaveLength(1);
  });

  it('does not retry a reached spend quota, though it is a 429', async () => {
    reset((_request, response) => sendJson(response, 429, envelope(429, 'COST_QUOTA_EXCEEDED'), { 'retry-after': '0' }));
    const error = await expectRejection(makeClient({ maxRetries: 2 }).runtime.execute(EXECUTE_BODY));
    expect(error).toBeInstanceOf(RateLimitError);
    expect(requests).toHaveLength(1);
  });

  it('gives up after maxRetries and throws the last error', async () => {
    reset((_request, response) => sendJson(response, 429, envelope(429, 'RATE_LIMITED'), { 'retry-after': '0' }));
    const error = await expectRejection(makeClient({ maxRetries: 2 }).knowledge.sources.list());
    expect(error).toBeInstanceOf(RateLimitError);
    expect(requests).toHaveLength(3);
  });

  it('sends no Idempotency-Key on GET', async () => {
    reset((_request, response) => sendJson(response, 200, { status: 'ok', database: 'ok' }));
    await makeClient().health();
    expect(requests[0].headers['idempotency-key']).toBeUndefined();
  });
});

describe('configuration', () => {
  it('throws at construction when no key is configured', () => {
    vi.stubEnv('PLATFORM_API_KEY', '');
    expect(() => new PlatformClient({ baseURL })).toThrow(PlatformError);
    expect(() => new PlatformClient({ baseURL })).toThrow(/PLATFORM_API_KEY/);
  });

  it('reads the key from PLATFORM_API_KEY and the base URL from PLATFORM_BASE_URL', async () => {
    vi.stubEnv('PLATFORM_API_KEY', 'csk_live_from_env');
    vi.stubEnv('PLATFORM_BASE_URL', baseURL);
    reset((_request, response) => sendJson(response, 200, { status: 'ok', database: 'ok' }));
    const client = new PlatformClient();
    expect(client.baseURL).toBe(baseURL);
    await client.health();
    expect(requests[0].headers.authorization).toBe('Bearer csk_live_from_env');
  });

  it('prefers explicit options to the environment, and defaults to what `npm start` serves', () => {
    vi.stubEnv('PLATFORM_API_KEY', 'csk_live_from_env');
    vi.stubEnv('PLATFORM_BASE_URL', '');
    expect(DEFAULT_BASE_URL).toBe('http://localhost:3000');
    expect(new PlatformClient().baseURL).toBe('http://localhost:3000');
    vi.stubEnv('PLATFORM_BASE_URL', 'http://from-env.example');
    expect(new PlatformClient({ baseURL: 'http://explicit.example/' }).baseURL).toBe('http://explicit.example');
  });
});

describe('server-sent events', () => {
  it('parses frames split at every byte, with CRLF, comments and multi-line data', async () => {
    const text = ': keep-alive\r\nevent: delta\r\ndata: {"content":"h\u00e9"}\r\n\r\nevent: note\ndata: a\ndata: b\n\n:x\n\nevent: done\rdata: {"finishReason":"stop"}\r\r';
    const bytes = new TextEncoder().encode(text);
    const events = await collect(parseServerSentEvents(bodyOf([...bytes].map((byte) => Uint8Array.of(byte)))));
    expect(events).toEqual([
      { event: 'delta', data: '{"content":"h\u00e9"}', id: undefined },
      { event: 'note', data: 'a\nb', id: undefined },
      { event: 'done', data: '{"finishReason":"stop"}', id: undefined },
    ]);
  });

  it('discards an unterminated last event', async () => {
    const events = await collect(parseServerSentEvents(bodyOf(['event: delta\ndata: {"content":"a"}\n\nevent: delta\ndata: {"con'])));
    expect(events.map((event) => event.data)).toEqual(['{"content":"a"}']);
  });

  it('skips unknown event names', async () => {
    const events = await collect(
      parseStreamEvents(parseServerSentEvents(bodyOf(['event: thinking\ndata: {"x":1}\n\ndata: untyped\n\nevent: delta\ndata: {"content":"ok"}\n\n']))),
    );
    expect(events).toEqual([{ event: 'delta', data: { content: 'ok' } }]);
  });

  it('streams typed events over HTTP across chunk boundaries', async () => {
    const frames =
      ': keep-alive\n\nevent: delta\ndata: {"content":"Hel"}\n\nevent: future\ndata: {}\n\nevent: delta\ndata: {"content":"lo \u2603"}\n\n' +
      'event: usage\ndata: {"inputTokens":5,"outputTokens":2,"totalTokens":7}\n\nevent: done\ndata: {"finishReason":"stop"}\n\n';
    const bytes = Buffer.from(frames, 'utf8');
    reset(async (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'req_stream' });
      // Cut mid-line, mid-field and inside the three bytes of the snowman.
      const cuts = [3, 20, 31, bytes.indexOf(Buffer.from('\u2603')) + 1, bytes.length - 7, bytes.length];
      let start = 0;
      for (const cut of cuts) {
        response.write(bytes.subarray(start, cut));
        start = cut;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      response.end();
    });
    const stream = await makeClient().runtime.stream(EXECUTE_BODY);
    expect(stream.requestId).toBe('req_stream');
    const events: StreamEvent[] = await collect(stream);
    expect(events).toEqual([
      { event: 'delta', data: { content: 'Hel' } },
      { event: 'delta', data: { content: 'lo \u2603' } },
      { event: 'usage', data: { inputTokens: 5, outputTokens: 2, totalTokens: 7 } },
      { event: 'done', data: { finishReason: 'stop' } },
    ]);
    expect(requests[0].headers.accept).toBe('text/event-stream');
    expect(requests[0].headers['idempotency-key']).toEqual(expect.any(String));
  });

  it('collects the text and the final details', async () => {
    reset((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'x-trace-id': 'trace_1', 'x-assistant-version': '4', 'x-assistant-environment': 'staging' });
      response.end(
        'event: tool_call\ndata: {"id":"call_1","name":"search","arguments":{"query":"x"}}\n\nevent: tool_result\ndata: {"id":"call_1","name":"search","ok":false,"error":"timeout"}\n\n' +
          'event: delta\ndata: {"content":"a"}\n\nevent: delta\ndata: {"content":"b"}\n\nevent: usage\ndata: {"inputTokens":1,"outputTokens":2,"totalTokens":3}\n\n' +
          'event: done\ndata: {"finishReason":"length","traceId":"trace_1","assistant":{"slug":"support-bot","version":4,"environment":"staging"},"later":"ignored"}\n\n',
      );
    });
    const stream = await makeClient().assistants.stream('support-bot', { input: 'hi', environment: 'staging' });
    // The ids are known from the headers before the first event.
    expect([stream.traceId, stream.assistantVersion, stream.assistantEnvironment]).toEqual(['trace_1', 4, 'staging']);
    expect(await stream.finalResult()).toEqual({
      text: 'ab',
      finishReason: 'length',
      usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
      traceId: 'trace_1',
      assistant: { slug: 'support-bot', version: 4, environment: 'staging' },
      toolCalls: [{ id: 'call_1', name: 'search', arguments: { query: 'x' }, ok: false, error: 'timeout' }],
    });
    expect(requests[0].url).toBe('/runtime/assistants/support-bot/stream');
  });

  it('throws a terminal error event from text() as GenerationStreamError', async () => {
    reset((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end('event: delta\ndata: {"content":"a"}\n\nevent: error\ndata: {"code":"INTERNAL_ERROR","message":"upstream failed","retryable":true,"providerName":"openai"}\n\n');
    });
    const stream = await makeClient().runtime.stream(EXECUTE_BODY);
    const error = (await expectRejection(stream.text())) as GenerationStreamError;
    expect(error).toBeInstanceOf(GenerationStreamError);
    expect(error).not.toBeInstanceOf(APIError);
    expect(error).toMatchObject({ code: 'INTERNAL_ERROR', retryable: true, providerName: 'openai', message: 'upstream failed' });
  });

  it('throws a typed error when the stream does not open', async () => {
    reset((_request, response) => sendJson(response, 404, envelope(404, 'DEPLOYMENT_NOT_FOUND')));
    const error = await expectRejection(makeClient().assistants.stream('support-bot', 'hi'));
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).code).toBe('DEPLOYMENT_NOT_FOUND');
  });

  it('aborting mid-stream throws APIUserAbortError from the iteration', async () => {
    reset((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('event: delta\ndata: {"content":"first"}\n\n');
      // ...and nothing more: the generation "hangs".
    });
    const controller = new AbortController();
    const stream = await makeClient().runtime.stream(EXECUTE_BODY, { signal: controller.signal });
    const seen: StreamEvent[] = [];
    const error = await expectRejection(
      (async () => {
        for await (const event of stream) {
          seen.push(event);
          controller.abort();
        }
      })(),
    );
    expect(seen).toHaveLength(1);
    expect(error).toBeInstanceOf(APIUserAbortError);
  });
});

describe('transport failures', () => {
  it('a refused connection throws APIConnectionError, a PlatformError but not an APIError', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const error = await expectRejection(makeClient({ baseURL: `http://127.0.0.1:${port}` }).health());
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).not.toBeInstanceOf(APIError);
    expect((error as Error).cause).toBeDefined();
  });

  it('aborting a request throws APIUserAbortError and does not retry', async () => {
    const controller = new AbortController();
    // Never answers; the caller aborts once the request has arrived.
    reset(() => controller.abort());
    const counting = countingFetch();
    const error = await expectRejection(makeClient({ maxRetries: 2, fetch: counting.fetch }).runtime.execute(EXECUTE_BODY, { signal: controller.signal }));
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).not.toBeInstanceOf(APIError);
    expect(counting.attempts).toHaveLength(1);
  });

  it('an already aborted signal sends nothing', async () => {
    reset((_request, response) => sendJson(response, 200, GENERATION));
    const error = await expectRejection(makeClient().runtime.execute(EXECUTE_BODY, { signal: AbortSignal.abort() }));
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(requests).toHaveLength(0);
  });

  it('a request slower than timeoutMs is retried like a lost connection, with the same Idempotency-Key, then throws APITimeoutError', async () => {
    reset(() => {
      // Never answers.
    });
    const counting = countingFetch();
    const error = await expectRejection(makeClient({ timeoutMs: 50, maxRetries: 2, fetch: counting.fetch }).runtime.execute(EXECUTE_BODY));
    expect(error).toBeInstanceOf(APITimeoutError);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).not.toBeInstanceOf(APIError);
    expect(counting.attempts).toHaveLength(3);
    expect(new Set(counting.attempts.map((headers) => headers.get('idempotency-key'))).size).toBe(1);
  });

  it('a timed-out attempt followed by a quick answer succeeds', async () => {
    let attempts = 0;
    reset((_request, response) => {
      attempts += 1;
      if (attempts > 1) sendJson(response, 200, GENERATION);
    });
    const result = await makeClient({ timeoutMs: 500, maxRetries: 1 }).runtime.execute(EXECUTE_BODY);
    expect(result).toEqual(GENERATION);
    expect(requests).toHaveLength(2);
  });
});

describe('knowledge uploads', () => {
  const DOCUMENT = {
    id: 'doc_1',
    sourceId: 'ks_1',
    filename: 'notes.md',
    contentType: 'text/markdown',
    byteSize: 8,
    status: 'PENDING',
    failureReason: null,
    chunkCount: 0,
    createdAt: '2026-11-23T10:00:00.000Z',
    updatedAt: '2026-11-23T10:00:00.000Z',
  };

  it('direct upload sends the bytes base64-encoded', async () => {
    reset((_request, response) => sendJson(response, 201, DOCUMENT));
    await makeClient().knowledge.documents.upload('ks_1', { filename: 'notes.md', content: '# Notes\n' });
    expect(requests[0].url).toBe('/knowledge/sources/ks_1/documents/upload');
    expect(JSON.parse(requests[0].body)).toEqual({ filename: 'notes.md', contentType: 'text/markdown', contentBase64: Buffer.from('# Notes\n').toString('base64') });
  });

  it('uploadFile creates the upload, PUTs the bytes without the API key, then completes', async () => {
    reset((request, response) => {
      if (request.url === '/knowledge/sources/ks_1/documents') {
        sendJson(response, 201, {
          document: DOCUMENT,
          upload: {
            url: `${baseURL}/storage/object-1?signature=abc`,
            method: 'PUT',
            headers: { 'Content-Type': 'text/markdown', 'Content-Length': '8' },
            expiresAt: '2026-11-23T10:15:00.000Z',
          },
        });
      } else if (request.url.startsWith('/storage/')) {
        response.writeHead(200);
        response.end();
      } else {
        sendJson(response, 200, { ...DOCUMENT, status: 'PENDING' });
      }
    });
    const document = await makeClient().knowledge.documents.uploadFile('ks_1', { filename: 'notes.md', content: new TextEncoder().encode('# Notes\n') });
    expect(document.id).toBe('doc_1');
    expect(requests.map((request) => `${request.method} ${request.url}`)).toEqual([
      'POST /knowledge/sources/ks_1/documents',
      'PUT /storage/object-1?signature=abc',
      'POST /knowledge/sources/ks_1/documents/doc_1/complete',
    ]);
    expect(JSON.parse(requests[0].body)).toEqual({ filename: 'notes.md', contentType: 'text/markdown', byteSize: 8 });
    const put = requests[1];
    expect(put.headers.authorization).toBeUndefined();
    expect(put.headers['idempotency-key']).toBeUndefined();
    expect(put.headers['content-type']).toBe('text/markdown');
    expect(put.headers['content-length']).toBe('8');
    expect(put.body).toBe('# Notes\n');
  });

  it('a failed PUT to object storage throws an APIError with the storage body', async () => {
    reset((request, response) => {
      if (request.method === 'POST') {
        sendJson(response, 201, {
          document: DOCUMENT,
          upload: { url: `${baseURL}/storage/object-1`, method: 'PUT', headers: { 'Content-Type': 'text/markdown' }, expiresAt: '2026-11-23T10:15:00.000Z' },
        });
      } else {
        response.writeHead(403, { 'content-type': 'application/xml' });
        response.end('<Error><Code>SignatureDoesNotMatch</Code></Error>');
      }
    });
    const error = (await expectRejection(makeClient().knowledge.documents.uploadFile('ks_1', { filename: 'notes.md', content: '# Notes\n' }))) as APIError;
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(error.code).toBeUndefined();
    expect(String(error.body)).toContain('SignatureDoesNotMatch');
  });
});

/** Cuts `bytes` at random byte offsets (inside multi-byte characters and line endings too). */
function splitAtRandom(bytes: Uint8Array, random: () => number): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  let start = 0;
  while (start < bytes.length) {
    const length = 1 + Math.floor(random() * 40);
    pieces.push(bytes.subarray(start, start + length));
    start += length;
  }
  return pieces;
}

describe('a stream of 1,000 deltas split at random byte boundaries', () => {
  const random = seededRandom(15);
  const alphabet = ['a', 'Z', ' ', 'é', '☃', '𝄞', '\n', '"', '\\', '中'];
  const deltas = Array.from({ length: 1000 }, () => Array.from({ length: 1 + Math.floor(random() * 12) }, () => alphabet[Math.floor(random() * alphabet.length)]).join(''));
  const endings = ['\n', '\r\n', '\r'];
  const frames =
    deltas.map((content, index) => `event: delta${endings[index % 3]}data: ${JSON.stringify({ content })}${endings[index % 3]}${endings[index % 3]}` + (index % 97 === 0 ? ': keep-alive\n\n' : '')).join('') +
    'event: usage\ndata: {"inputTokens":1,"outputTokens":1000,"totalTokens":1001}\n\nevent: done\ndata: {"finishReason":"stop"}\n\n';
  const bytes = new TextEncoder().encode(frames);

  it.each([1, 2, 3, 4, 5])('parses to the same text (seed %i)', async (seed) => {
    const events = await collect(parseStreamEvents(parseServerSentEvents(bodyOf(splitAtRandom(bytes, seededRandom(seed))))));
    const text = events.map((event) => (event.event === 'delta' ? event.data.content : '')).join('');
    expect(text).toBe(deltas.join(''));
    expect(events.filter((event) => event.event === 'delta')).toHaveLength(1000);
    expect(events.at(-1)).toEqual({ event: 'done', data: { finishReason: 'stop' } });
  });

  it('parses to the same text over HTTP, written in random pieces', async () => {
    const pieces = splitAtRandom(bytes, seededRandom(99));
    reset(async (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const [index, piece] of pieces.entries()) {
        response.write(piece);
        // Yield now and then so that pieces leave as separate reads.
        if (index % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      response.end();
    });
    const stream = await makeClient().runtime.stream(EXECUTE_BODY);
    expect(await stream.text()).toBe(deltas.join(''));
  });
});

describe('responses, options and logging', () => {
  it('withResponse() gives the body, the response, the request id and a generation\'s trace id', async () => {
    reset((_request, response) => sendJson(response, 200, GENERATION, { 'x-request-id': 'req_abc', 'x-trace-id': 'trace_abc' }));
    const { data, response, requestId, traceId } = await makeClient().runtime.execute(EXECUTE_BODY).withResponse();
    expect(data).toEqual(GENERATION);
    expect(response.status).toBe(200);
    expect(requestId).toBe('req_abc');
    expect(traceId).toBe('trace_abc');
    // Calls that run no generation name no trace.
    reset((_request, response) => sendJson(response, 200, { id: 'ks_1', name: 'n' }, { 'x-request-id': 'req_def' }));
    expect((await makeClient().knowledge.sources.retrieve('ks_1').withResponse()).traceId).toBeUndefined();
  });

  it('a generation that failed at the provider names its trace on the error', async () => {
    reset((_request, response) => sendJson(response, 502, envelope(502, 'INTERNAL_ERROR'), { 'x-trace-id': 'trace_failed' }));
    const error = (await makeClient().runtime.execute(EXECUTE_BODY).catch((caught: unknown) => caught)) as ServerError;
    expect(error).toBeInstanceOf(ServerError);
    expect(error.traceId).toBe('trace_failed');
  });

  it('sends default headers and query, per-call ones on top, and withOptions() derives a client', async () => {
    reset((_request, response) => sendJson(response, 200, { data: [], hasMore: false, nextCursor: null }));
    const client = makeClient({ defaultHeaders: { 'X-Team': 'search', 'X-Trace': 'on' }, defaultQuery: { region: 'eu' } });
    await client.knowledge.sources.list({ limit: 3 }, { headers: { 'X-Trace': null, 'X-Call': '1' }, query: { debug: true } });
    expect(requests[0].url).toBe('/knowledge/sources?region=eu&limit=3&debug=true');
    expect(requests[0].headers).toMatchObject({ 'x-team': 'search', 'x-call': '1', authorization: 'Bearer csk_live_test' });
    expect(requests[0].headers['x-trace']).toBeUndefined();

    const derived = client.withOptions({ defaultHeaders: { 'X-Team': 'billing' }, timeoutMs: 1234 });
    expect(derived.config).toMatchObject({ apiKey: 'csk_live_test', baseURL, timeoutMs: 1234, defaultHeaders: { 'X-Team': 'billing', 'X-Trace': 'on' }, defaultQuery: { region: 'eu' } });
    expect(client.config.timeoutMs).not.toBe(1234);
  });

  it('logs requests and retries to the logger hook, never the key', async () => {
    let attempts = 0;
    reset((_request, response) => {
      attempts += 1;
      if (attempts === 1) sendJson(response, 503, envelope(503, 'INTERNAL_ERROR'), { 'retry-after': '0' });
      else sendJson(response, 200, GENERATION, { 'x-request-id': 'req_logged' });
    });
    const lines: string[] = [];
    const record = (level: string) => (message: string, details?: object) => lines.push(`${level} ${message} ${JSON.stringify(details ?? {})}`);
    const logger: Logger = { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
    await makeClient({ logger, logLevel: 'debug', maxRetries: 1 }).runtime.execute(EXECUTE_BODY);
    expect(lines.some((line) => line.startsWith('info') && line.includes('retrying'))).toBe(true);
    expect(lines.some((line) => line.includes('-> 200') && line.includes('req_logged'))).toBe(true);
    expect(lines.join('\n')).not.toContain('csk_live_test');

    lines.length = 0;
    attempts = 1;
    await makeClient({ logger }).runtime.execute(EXECUTE_BODY);
    expect(lines).toEqual([]);
  });

  it('error codes are typed as the catalog, and unknown ones still type-check', async () => {
    const known: ErrorCode = 'IDEMPOTENCY_KEY_CONFLICT';
    const unknown: ErrorCode = 'A_CODE_FROM_A_NEWER_SERVER';
    expect([known, unknown]).toHaveLength(2);
  });

  it('retries a 409 IDEMPOTENCY_KEY_CONFLICT that answers a retry (its first attempt still running), not a first attempt', async () => {
    let attempts = 0;
    reset((_request, response) => {
      attempts += 1;
      if (attempts === 1) return; // times out
      if (attempts === 2) sendJson(response, 409, envelope(409, 'IDEMPOTENCY_KEY_CONFLICT'), { 'retry-after': '0' });
      else sendJson(response, 200, GENERATION);
    });
    const retried = countingFetch();
    expect(await makeClient({ timeoutMs: 300, maxRetries: 3, fetch: retried.fetch }).runtime.execute(EXECUTE_BODY)).toEqual(GENERATION);
    expect(new Set(retried.attempts.map((headers) => headers.get('idempotency-key'))).size).toBe(1);

    reset((_request, response) => sendJson(response, 409, envelope(409, 'IDEMPOTENCY_KEY_CONFLICT')));
    const first = countingFetch();
    await expect(makeClient({ maxRetries: 3, fetch: first.fetch }).runtime.execute(EXECUTE_BODY)).rejects.toBeInstanceOf(ConflictError);
    expect(first.attempts).toHaveLength(1);
  });

  it('a low-level operation without a client throws a PlatformError', () => {
    expect(() => operations.getHealth()).toThrow(/No client/);
  });

  it('the generated stream operation resolves with a Stream', async () => {
    reset((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end('event: delta\ndata: {"content":"low-level"}\n\n');
    });
    const stream = await operations.streamGeneration(EXECUTE_BODY, undefined, { client: makeClient() });
    expect(await stream.text()).toBe('low-level');
  });
});

describe('files and polling', () => {
  it('toFile takes text, bytes, buffers, Blobs, web streams and async iterables', async () => {
    const text = 'héllo';
    const encoded = new TextEncoder().encode(text);
    const sources = [
      text,
      encoded,
      encoded.buffer,
      Buffer.from(text),
      new Blob([text]),
      new ReadableStream<Uint8Array>({ start: (controller) => (controller.enqueue(encoded), controller.close()) }),
      (async function* () {
        yield encoded.subarray(0, 2);
        yield encoded.subarray(2);
      })(),
    ];
    for (const source of sources) {
      const file = await toFile(source, 'notes.md');
      expect(file.name).toBe('notes.md');
      expect(file.type).toBe('text/markdown');
      expect(await file.text()).toBe(text);
    }
    expect((await toFile(new File(['x'], 'a.csv', { type: 'text/csv' }))).name).toBe('a.csv');
    await expect(toFile('no name')).rejects.toThrow(PlatformError);
  });

  const document = (status: string, failureReason: string | null = null) => ({
    id: 'doc_1', sourceId: 'ks_1', filename: 'notes.md', contentType: 'text/markdown', byteSize: 8, status, failureReason, chunkCount: 0,
    createdAt: '2026-11-23T10:00:00.000Z', updatedAt: '2026-11-23T10:00:00.000Z',
  });

  it('waitUntilReady reads until READY, waiting longer each time', async () => {
    const states = ['PENDING', 'PROCESSING', 'PROCESSING', 'READY'];
    const readAt: number[] = [];
    reset((_request, response) => {
      readAt.push(Date.now());
      sendJson(response, 200, document(states[readAt.length - 1]));
    });
    const ready = await makeClient().knowledge.documents.waitUntilReady('ks_1', 'doc_1', { pollIntervalMs: 40 });
    expect(ready.status).toBe('READY');
    expect(requests.map((request) => request.url)).toEqual(Array(4).fill('/knowledge/sources/ks_1/documents/doc_1'));
    const gaps = readAt.slice(1).map((at, index) => at - readAt[index]);
    expect(gaps[2]).toBeGreaterThan(gaps[0]);
  });

  it('waitUntilReady throws DocumentFailedError with the reason on FAILED, and stops when its signal aborts', async () => {
    reset((_request, response) => sendJson(response, 200, document('FAILED', 'The file is empty')));
    const failed = (await expectRejection(makeClient().knowledge.documents.waitUntilReady('ks_1', 'doc_1'))) as DocumentFailedError;
    expect(failed).toBeInstanceOf(DocumentFailedError);
    expect(failed).toMatchObject({ reason: 'The file is empty', documentId: 'doc_1' });

    reset((_request, response) => sendJson(response, 200, document('PROCESSING')));
    const aborted = await expectRejection(makeClient().knowledge.documents.waitUntilReady('ks_1', 'doc_1', { signal: AbortSignal.timeout(100), pollIntervalMs: 20 }));
    expect(aborted).toBeInstanceOf(APIUserAbortError);
  });
});
