/**
 * A local HTTP server that speaks the OpenAI wire protocols: Chat Completions
 * (POST /v1/chat/completions, what the `openai` SDK backend uses) and the Responses API as an SSE
 * stream (POST /v1/responses, what `codex exec` uses with a custom model provider). Replies are
 * scripted per request; every request is captured.
 */
import type http from 'node:http';
import { sleep, startFakeServer, type CapturedRequest, type FakeServer } from './fake-anthropic.js';

export type { CapturedRequest, FakeServer } from './fake-anthropic.js';

export interface FakeOpenAiReply {
  status?: number;
  headers?: Record<string, string>;
  text?: string;
  /** a function call the agent should run (Responses API; Chat Completions when streamed) */
  functionCall?: { name: string; arguments: Record<string, unknown> };
  raw?: string;
  delayMs?: number;
  usage?: { input: number; output: number };
  model?: string;
}

export type OpenAiResponder = (req: CapturedRequest, index: number) => FakeOpenAiReply | Promise<FakeOpenAiReply>;

function sse(res: http.ServerResponse, data: Record<string, unknown>): void {
  res.write(`event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`);
}

let seq = 1;

/** A streamed Chat Completions answer (`stream: true`, as the AI SDK of OpenCode and Pi's client ask): text or one tool call, then usage. */
function chatStream(res: http.ServerResponse, reply: FakeOpenAiReply, model: string, usage: { input: number; output: number }): void {
  const base = { id: `chatcmpl-fake${seq++}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model };
  const chunk = (delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}) => res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...reply.headers });
  if (reply.functionCall) {
    chunk({ role: 'assistant', tool_calls: [{ index: 0, id: `call_${seq++}`, type: 'function', function: { name: reply.functionCall.name, arguments: JSON.stringify(reply.functionCall.arguments) } }] }, null);
  } else chunk({ role: 'assistant', content: reply.text ?? '' }, null);
  chunk({}, reply.functionCall ? 'tool_calls' : 'stop', { usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output } });
  res.write('data: [DONE]\n\n');
  res.end();
}

export async function startFakeOpenAi(responder: OpenAiResponder = () => ({ text: 'ok' })): Promise<FakeServer<FakeOpenAiReply>> {
  let respond = responder;
  const isModelCall = (r: CapturedRequest) => r.method === 'POST' && /\/(chat\/completions|responses)(\?|$)/.test(r.path);
  const server = await startFakeServer(async (req, res, index) => {
    if (req.method === 'GET' && /\/models(\?|$)/.test(req.path)) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [], models: [] }));
      return;
    }
    if (!isModelCall(req)) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.path}`, type: 'invalid_request_error' } }));
      return;
    }
    const reply = await respond(req, index);
    if (reply.delayMs) await sleep(reply.delayMs);
    const status = reply.status ?? 200;
    if (reply.raw !== undefined || status !== 200) {
      res.writeHead(status, { 'content-type': 'application/json', ...reply.headers });
      res.end(reply.raw ?? JSON.stringify({ error: { message: `fake ${status}`, type: status === 401 ? 'invalid_api_key' : 'server_error', code: null } }));
      return;
    }
    const model = reply.model ?? (typeof req.body?.model === 'string' ? req.body.model : 'gpt-5-mini');
    const usage = reply.usage ?? { input: Math.ceil(req.raw.length / 4), output: Math.ceil((reply.text ?? '').length / 4) + 1 };
    if (/chat\/completions/.test(req.path) && req.body?.stream === true) {
      chatStream(res, reply, model, usage);
      return;
    }
    if (/chat\/completions/.test(req.path)) {
      res.writeHead(200, { 'content-type': 'application/json', ...reply.headers });
      res.end(
        JSON.stringify({
          id: `chatcmpl-fake${seq++}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model,
          choices: [{ index: 0, message: { role: 'assistant', content: reply.text ?? '' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
        }),
      );
      return;
    }
    // Responses API, streamed
    const id = `resp_fake${seq++}`;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...reply.headers });
    const base = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model, status: 'in_progress', output: [] as unknown[] };
    sse(res, { type: 'response.created', sequence_number: 0, response: base });
    const output: Array<Record<string, unknown>> = [];
    let n = 1;
    if (reply.text !== undefined) {
      const item = { id: `msg_${seq++}`, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: reply.text, annotations: [] }] };
      sse(res, { type: 'response.output_item.added', sequence_number: n++, output_index: output.length, item: { ...item, status: 'in_progress', content: [] } });
      sse(res, { type: 'response.output_text.delta', sequence_number: n++, item_id: item.id, output_index: output.length, content_index: 0, delta: reply.text });
      sse(res, { type: 'response.output_item.done', sequence_number: n++, output_index: output.length, item });
      output.push(item);
    }
    if (reply.functionCall) {
      const item = { id: `fc_${seq++}`, type: 'function_call', status: 'completed', call_id: `call_${seq++}`, name: reply.functionCall.name, arguments: JSON.stringify(reply.functionCall.arguments) };
      sse(res, { type: 'response.output_item.added', sequence_number: n++, output_index: output.length, item });
      sse(res, { type: 'response.output_item.done', sequence_number: n++, output_index: output.length, item });
      output.push(item);
    }
    sse(res, {
      type: 'response.completed',
      sequence_number: n++,
      response: {
        ...base,
        status: 'completed',
        output,
        usage: { input_tokens: usage.input, input_tokens_details: { cached_tokens: 0 }, output_tokens: usage.output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: usage.input + usage.output },
      },
    });
    res.end();
  }, isModelCall);
  return { ...server, setResponder: (fn: OpenAiResponder) => void (respond = fn) };
}
