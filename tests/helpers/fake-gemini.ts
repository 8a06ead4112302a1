/**
 * A local HTTP server that speaks the Gemini API's generateContent wire protocol:
 * POST /v1beta/models/<model>:generateContent (one JSON body), :streamGenerateContent?alt=sse
 * (an SSE stream, what Gemini CLI uses) and :countTokens. Replies are scripted per model call
 * (text or a function call the agent should run); every request is captured.
 *
 * A JSON-mode request (generationConfig.responseMimeType application/json, e.g. the CLI's model
 * router asking for a complexity score) is the CLI's own utility call, not a turn of the agent: it
 * gets a minimal answer that fits its responseJsonSchema, as the real API would. Answering it with
 * the scripted prose instead made the CLI retry with back-off for ~100 s before every turn.
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

interface JsonSchemaNode {
  type?: string;
  properties?: Record<string, JsonSchemaNode>;
  required?: string[];
  items?: JsonSchemaNode;
  enum?: unknown[];
}

/** The smallest value that satisfies a Gemini responseJsonSchema (types in the API's upper case). */
function minimalValue(schema: JsonSchemaNode | undefined): unknown {
  if (schema?.enum?.length) return schema.enum[0];
  switch ((schema?.type ?? 'object').toLowerCase()) {
    case 'string':
      return 'fake';
    case 'integer':
    case 'number':
      return 10;
    case 'boolean':
      return false;
    case 'array':
      return [];
    default:
      return Object.fromEntries((schema?.required ?? Object.keys(schema?.properties ?? {})).map((k) => [k, minimalValue(schema?.properties?.[k])]));
  }
}

/** The JSON the CLI asked for, when the request is a JSON-mode utility call; null for an agent turn. */
function utilityAnswer(req: CapturedRequest): string | null {
  if (req.method !== 'POST' || !req.raw) return null;
  let body: { generationConfig?: { responseMimeType?: string; responseJsonSchema?: JsonSchemaNode; responseSchema?: JsonSchemaNode } };
  try {
    body = JSON.parse(req.raw) as typeof body;
  } catch {
    return null;
  }
  const cfg = body.generationConfig;
  if (cfg?.responseMimeType !== 'application/json') return null;
  return JSON.stringify(minimalValue(cfg.responseJsonSchema ?? cfg.responseSchema));
}

export async function startFakeGemini(responder: GeminiResponder = () => ({ text: 'ok' })): Promise<FakeServer<FakeGeminiReply>> {
  let respond = responder;
  const isModelCall = (r: CapturedRequest) => r.method === 'POST' && /:(stream)?[gG]enerateContent(\?|$)/.test(r.path) && utilityAnswer(r) === null;
  const server = await startFakeServer(async (req, res, index) => {
    const utility = utilityAnswer(req);
    if (utility !== null) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(candidate({ text: utility })));
      return;
    }
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
