'use strict';
/**
 * The benchmark's upstream: a loopback OpenAI-compatible server that answers at once, in its own
 * process. Same behaviour as test/fakes/fake-openai-upstream.ts (echo of the last user message;
 * word chunks and a usage chunk when streaming) but plain node:http, and it records nothing, so
 * it costs the same on the hundredth thousand request as on the first.
 *
 *   node bench/lib/fake-upstream.js      → sends {ready, url} over IPC (url ends in /v1)
 */
const http = require('node:http');

const CREATED = 1_700_000_000;

function lastUserText(body) {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    if (Array.isArray(m.content))
      return m.content
        .filter((p) => p?.type === 'text')
        .map((p) => p.text)
        .join('\n');
    return '';
  }
  return '';
}

function completion(text, model, usage) {
  return {
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: CREATED,
    model,
    system_fingerprint: 'fp_bench',
    choices: [{ index: 0, message: { role: 'assistant', content: text }, logprobs: null, finish_reason: 'stop' }],
    usage,
  };
}

function chunkEvents(text, model, usage) {
  const head = { id: 'chatcmpl-bench-stream', object: 'chat.completion.chunk', created: CREATED, model };
  const chunk = (delta, finish = null) => ({ ...head, choices: [{ index: 0, delta, finish_reason: finish }] });
  const out = [chunk({ role: 'assistant', content: '' })];
  for (const piece of text.split(/(?<=\S)(?=\s)/).filter(Boolean)) out.push(chunk({ content: piece }));
  out.push(chunk({}, 'stop'));
  if (usage) out.push({ ...head, choices: [], usage });
  return out;
}

function notFound(res, req) {
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({ error: { message: `No route ${req.method} ${req.url}`, type: 'invalid_request_error', param: null, code: null } }),
  );
}

const server = http.createServer((req, res) => {
  const parts = [];
  req.on('data', (part) => parts.push(part));
  req.on('end', () => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return notFound(res, req);
    let body;
    try {
      body = JSON.parse(Buffer.concat(parts).toString('utf8'));
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ error: { message: 'invalid JSON', type: 'invalid_request_error', param: null, code: null } }));
    }
    const text = lastUserText(body);
    const model = typeof body.model === 'string' ? body.model : 'gpt-bench';
    const completionTokens = text.split(/\s+/).filter(Boolean).length;
    const usage = { prompt_tokens: 10, completion_tokens: completionTokens, total_tokens: 10 + completionTokens };
    if (body.stream !== true) {
      const json = JSON.stringify(completion(text, model, usage));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
      return res.end(json);
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    // Every event written at once, each in its own write: an upstream that is never the bottleneck.
    for (const event of chunkEvents(text, model, body.stream_options?.include_usage ? usage : null)) {
      res.write(`data: ${JSON.stringify(event)}\n\n`);
    }
    res.end('data: [DONE]\n\n');
  });
});
server.keepAliveTimeout = 60_000;

server.listen(0, '127.0.0.1', () => {
  const url = `http://127.0.0.1:${server.address().port}/v1`;
  if (process.send) process.send({ ready: true, url });
  else console.log(`fake upstream listening on ${url}`);
});

process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
