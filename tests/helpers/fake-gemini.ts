/**
 * A local HTTP server that speaks the Gemini API's generateContent wire protocol:
 * POST /v1beta/models/<model>:generateContent (one JSON body), :streamGenerateContent?alt=sse
 * (an SSE stream, what Gemini CLI uses) and :countTokens. Replies are scripted per model call
 * (text or a function call the agent should run); every request is captured.
 */
import { sleep, startFakeServer, type CapturedRequest, type FakeServer } from './fake-anthropic.js';

export type { CapturedRequest, FakeServer } from './fake-anthropic.js';

export interface FakeGeminiReply {
  status?: number;
  text?: string;
  functionCall?: { name: string; args: Record<string, unknown> };
  raw?: string;
  delayMs?: number;
  usage?: { input: number; output: number };
}

export type GeminiResponder = (req: CapturedRequest, index: number) => FakeGeminiReply | Promise<FakeGeminiReply>;

function candidate(reply: FakeGeminiReply): Record<string, unknown> {
  const parts: Array<Record<string, unknown>> = [];
  if (reply.text !== undefined) parts.push({ text: reply.text });
  if (reply.functionCall) parts.push({ functionCall: reply.functionCall });
  const u = reply.usage ?? { input: 12, output: 7 };
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: u.input, candidatesTokenCount: u.output, totalTokenCount: u.input + u.output },
    modelVersion: 'gemini-fake',
  };
}

export async function startFakeGemini(responder: GeminiResponder = () => ({ text: 'ok' })): Promise<FakeServer<FakeGeminiReply>> {
  let respond = responder;
  const isModelCall = (r: CapturedRequest) => r.method === 'POST' && /:(stream)?[gG]enerateContent(\?|$)/.test(r.path);
  const server = await startFakeServer(async (req, res, index) => {
    if (/:countTokens(\?|$)/.test(req.path)) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ totalTokens: Math.ceil(req.raw.length / 4) }));
      return;
    }
    if (!isModelCall(req)) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 404, message: `no such endpoint ${req.path}`, status: 'NOT_FOUND' } }));
      return;
    }
    const reply = await respond(req, index);
    if (reply.delayMs) await sleep(reply.delayMs);
    if (reply.status && reply.status >= 400) {
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(reply.raw ?? JSON.stringify({ error: { code: reply.status, message: 'scripted error', status: 'INTERNAL' } }));
      return;
    }
    if (reply.raw !== undefined) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(reply.raw);
      return;
    }
    if (/:streamGenerateContent/.test(req.path)) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify(candidate(reply))}\r\n\r\n`);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(candidate(reply)));
  }, isModelCall);
  return {
    ...server,
    setResponder: (fn) => {
      respond = fn;
    },
  };
}
