/**
 * A local HTTP server that speaks the Anthropic Messages wire protocol (POST /v1/messages), both
 * as one JSON body and as an SSE stream (`stream: true`, used by the claude CLI). Tests script the
 * replies (text, tool_use, errors with headers, delays, malformed bodies) and read back every
 * request the server received.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CapturedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: Record<string, unknown> | undefined;
}

export interface FakeReply {
  status?: number;
  headers?: Record<string, string>;
  /** assistant text (a text block) */
  text?: string;
  /** a tool_use block after the text (the agent will run the tool and call again) */
  toolUse?: { name: string; input: Record<string, unknown>; id?: string };
  /** raw body instead of a well-formed message (malformed replies, error bodies) */
  raw?: string;
  delayMs?: number;
  usage?: { input_tokens: number; output_tokens: number };
  model?: string;
}

export type Responder = (req: CapturedRequest, index: number) => FakeReply | Promise<FakeReply>;

export interface FakeServer<R = FakeReply> {
  url: string;
  port: number;
  requests: CapturedRequest[];
  /** only the model calls (POST .../messages), not count_tokens or other side calls */
  messageRequests(): CapturedRequest[];
  setResponder(fn: (req: CapturedRequest, index: number) => R | Promise<R>): void;
  close(): Promise<void>;
}

/** The reply fields both fakes understand (for tests that run against either). */
export interface CommonReply {
  status?: number;
  headers?: Record<string, string>;
  text?: string;
  raw?: string;
  delayMs?: number;
}

export async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parse(raw: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(raw);
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export async function startFakeServer(
  handle: (req: CapturedRequest, res: http.ServerResponse, index: number) => Promise<void>,
  isModelCall: (r: CapturedRequest) => boolean,
): Promise<Omit<FakeServer<never>, 'setResponder'> & { setHandler(h: typeof handle): void }> {
  const requests: CapturedRequest[] = [];
  let handler = handle;
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      const captured: CapturedRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, raw, body: parse(raw) };
      requests.push(captured);
      try {
        await handler(captured, res, requests.filter(isModelCall).length - 1);
      } catch (err) {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: String(err) }));
      }
    })();
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    messageRequests: () => requests.filter(isModelCall),
    setHandler: (h) => {
      handler = h;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function sse(res: http.ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

let nextId = 1;

/** Starts the fake Anthropic API. Default reply: text "ok". */
export async function startFakeAnthropic(responder: Responder = () => ({ text: 'ok' })): Promise<FakeServer<FakeReply>> {
  let respond = responder;
  const isModelCall = (r: CapturedRequest) => r.method === 'POST' && /\/v1\/messages(\?|$)/.test(r.path);
  const server = await startFakeServer(async (req, res, index) => {
    if (req.method === 'POST' && /\/v1\/messages\/count_tokens/.test(req.path)) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ input_tokens: Math.ceil(req.raw.length / 4) }));
      return;
    }
    if (!isModelCall(req)) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `no route ${req.path}` } }));
      return;
    }
    const reply = await respond(req, index);
    if (reply.delayMs) await sleep(reply.delayMs);
    const status = reply.status ?? 200;
    if (reply.raw !== undefined || status !== 200) {
      res.writeHead(status, { 'content-type': 'application/json', ...reply.headers });
      res.end(
        reply.raw ??
          JSON.stringify({ type: 'error', error: { type: status === 401 ? 'authentication_error' : status === 429 ? 'rate_limit_error' : 'api_error', message: `fake ${status}` } }),
      );
      return;
    }
    const model = reply.model ?? (typeof req.body?.model === 'string' ? req.body.model : 'claude-sonnet-4-5');
    const usage = reply.usage ?? { input_tokens: Math.ceil(req.raw.length / 4), output_tokens: Math.ceil((reply.text ?? '').length / 4) + 1 };
    const id = `msg_fake_${nextId++}`;
    const blocks: Array<Record<string, unknown>> = [];
    if (reply.text !== undefined) blocks.push({ type: 'text', text: reply.text });
    if (reply.toolUse) blocks.push({ type: 'tool_use', id: reply.toolUse.id ?? `toolu_fake_${nextId++}`, name: reply.toolUse.name, input: reply.toolUse.input });
    const stopReason = reply.toolUse ? 'tool_use' : 'end_turn';
    if (req.body?.stream === true) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...reply.headers });
      sse(res, 'message_start', {
        type: 'message_start',
        message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: usage.input_tokens, output_tokens: 1 } },
      });
      blocks.forEach((b, i) => {
        if (b.type === 'text') {
          sse(res, 'content_block_start', { type: 'content_block_start', index: i, content_block: { type: 'text', text: '' } });
          sse(res, 'content_block_delta', { type: 'content_block_delta', index: i, delta: { type: 'text_delta', text: b.text } });
        } else {
          sse(res, 'content_block_start', { type: 'content_block_start', index: i, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
          sse(res, 'content_block_delta', { type: 'content_block_delta', index: i, delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) } });
        }
        sse(res, 'content_block_stop', { type: 'content_block_stop', index: i });
      });
      sse(res, 'message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
      sse(res, 'message_stop', { type: 'message_stop' });
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', ...reply.headers });
    res.end(JSON.stringify({ id, type: 'message', role: 'assistant', model, content: blocks, stop_reason: stopReason, stop_sequence: null, usage }));
  }, isModelCall);
  return { ...server, setResponder: (fn: Responder) => void (respond = fn) };
}
