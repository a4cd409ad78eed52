'use strict';
/**
 * The cluster's bounded load: `clients` loops, each call one of
 * - an assistant call on one of the shared threads (JSON), 50 %;
 * - the same, streamed (SSE), 20 %;
 * - a deployed prompt call (no thread), 30 %;
 * until the deadline. Every call sends one user message with a unique marker; the fake upstream
 * echoes it, so an answer is checked word for word, and the turn it stored can be found again.
 */

const MIX = [
  { op: 'assistant', weight: 0.5 },
  { op: 'assistant-stream', weight: 0.2 },
  { op: 'prompt', weight: 0.3 },
];
const CALL_TIMEOUT_MS = 30_000;

function pickOp(random) {
  let r = random();
  for (const { op, weight } of MIX) if ((r -= weight) < 0) return op;
  return MIX[0].op;
}

/** A small deterministic generator, so two runs with the same settings issue the same calls. */
function seeded(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

async function oneCall(target, call) {
  const body = { messages: [{ role: 'user', content: call.marker }] };
  if (call.threadId) body.threadId = call.threadId;
  if (call.op === 'assistant-stream') body.stream = true;
  const path = call.op === 'prompt' ? target.promptPath : target.assistantPath;
  const res = await fetch(`${target.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': target.key, 'x-cluster-call': call.id },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
  });
  call.status = res.status;
  if (call.op !== 'assistant-stream') {
    const text = await res.text();
    if (res.status !== 200) return (call.error = `HTTP ${res.status}: ${text.slice(0, 200)}`);
    const answer = JSON.parse(text).choices?.[0]?.message?.content;
    if (answer !== call.marker) call.error = `answer ${JSON.stringify(answer)} is not the echo of ${call.marker}`;
    return;
  }
  const text = await res.text();
  if (res.status !== 200) return (call.error = `HTTP ${res.status}: ${text.slice(0, 200)}`);
  let answer = '';
  let done = false;
  for (const line of text.split('\n')) {
    if (!line.startsWith('data: ')) continue;
    const data = line.slice(6);
    if (data === '[DONE]') done = true;
    else answer += JSON.parse(data).choices?.[0]?.delta?.content ?? '';
  }
  if (!done) call.error = 'stream ended without [DONE]';
  else if (answer !== call.marker) call.error = `streamed ${JSON.stringify(answer)} is not the echo of ${call.marker}`;
}

/** Runs the load until `done()` says so; returns every call with its timings and outcome. */
async function runLoad(target, { clients, threads, done, seed = 1 }) {
  const calls = [];
  const loops = Array.from({ length: clients }, async (_, client) => {
    const random = seeded(seed * 1000 + client);
    for (let i = 0; !done(); i++) {
      const op = pickOp(random);
      const call = {
        id: `c${client}-${i}`,
        op,
        marker: `turn c${client}-${i}`,
        threadId: op === 'prompt' ? null : threads[Math.floor(random() * threads.length)],
        start: Date.now(),
      };
      calls.push(call);
      try {
        await oneCall(target, call);
      } catch (err) {
        call.error = `${err.name}: ${err.message}${err.cause ? ` (${err.cause.code ?? err.cause.message})` : ''}`;
      }
      call.end = Date.now();
      call.ok = !call.error;
    }
  });
  await Promise.all(loops);
  return calls;
}

module.exports = { runLoad };
