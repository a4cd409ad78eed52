'use strict';
/** The scenarios of `npm run bench`: what each one calls, and one request to check it works. */

const USER_MESSAGE = { role: 'user', content: 'Summarize the release notes in two short sentences please.' };
const VARIABLES = { language: 'English' };

/** The body Parley sends upstream for scenario c, so that the upstream and the peers carry the same payload. */
function upstreamBody(stream) {
  return JSON.stringify({
    model: 'gpt-bench',
    messages: [{ role: 'system', content: 'You are a concise assistant for engineers. Answer in English.' }, USER_MESSAGE],
    temperature: 0.2,
    max_tokens: 64,
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  });
}

/** The thread id an assistant call answered with (x-parley-thread-id, or the langtail-compatible name). */
function threadIdOf(headers) {
  const get = (name) => (typeof headers.get === 'function' ? headers.get(name) : headers[name]);
  const id = get('x-parley-thread-id') ?? get('x-langtail-thread-id');
  return typeof id === 'string' && id ? id : null;
}

/** Per connection: a conversation of `turns` calls; the first opens the thread, the rest continue it. */
function conversation(pathname, stream, turns = 10) {
  const body = (threadId) =>
    JSON.stringify({
      variables: VARIABLES,
      messages: [USER_MESSAGE],
      ...(stream ? { stream: true } : {}),
      ...(threadId ? { threadId } : {}),
    });
  const remember = (status, _body, context, headers) => {
    const id = threadIdOf(headers);
    if (status === 200 && id) context.threadId = id;
  };
  return Array.from({ length: turns }, (_, i) =>
    i === 0
      ? { method: 'POST', path: pathname, body: body(undefined), onResponse: remember }
      : {
          method: 'POST',
          path: pathname,
          setupRequest: (req, context) => ({ ...req, body: body(context.threadId) }),
          onResponse: remember,
        },
  );
}

/**
 * Per connection: a `/v1/conversations` conversation of `turns` `/v1/responses` calls on the
 * deployed assistant (the request creating the conversation comes first, one in turns + 1).
 */
function responsesConversation(turns = 10) {
  const body = (conversation) =>
    JSON.stringify({ prompt: { id: 'bench-assistant', variables: VARIABLES }, input: USER_MESSAGE.content, conversation });
  const remember = (status, text, context) => {
    if (status === 200) context.conversation = JSON.parse(text).id;
  };
  return [
    { method: 'POST', path: '/v1/conversations', body: '{}', onResponse: remember },
    ...Array.from({ length: turns }, () => ({
      method: 'POST',
      path: '/v1/responses',
      setupRequest: (req, context) => ({ ...req, body: body(context.conversation) }),
    })),
  ];
}

/**
 * Every scenario of a run, in the order they take turns. `servers`: { upstream, rawProxy, bare,
 * portkey? ({proc, url, headers} or {skipped}), parley }, `setup`: what setUpParley returned.
 */
function scenariosOf(servers, setup) {
  const { upstream, rawProxy, bare, bareFetch, portkey, parley, parleyOtel } = servers;
  const key = { 'x-api-key': setup.key };
  const bearer = { authorization: `Bearer ${setup.key}` };
  const list = [
    {
      id: 'a',
      name: 'upstream direct',
      serverPid: () => upstream.pid,
      target: { url: `${upstream.url}/chat/completions`, body: upstreamBody(false) },
    },
    {
      id: 'a~',
      name: 'upstream direct, streamed',
      stream: true,
      serverPid: () => upstream.pid,
      target: { url: `${upstream.url}/chat/completions`, body: upstreamBody(true) },
    },
  ];
  if (rawProxy)
    list.push({
      id: 'r',
      name: 'raw node:http + undici Pool proxy',
      serverPid: () => rawProxy.pid,
      target: { url: `${rawProxy.url}/chat/completions`, body: upstreamBody(false) },
    });
  if (bare)
    list.push({
      id: 'b',
      name: 'bare Nest + express, undici.request',
      serverPid: () => bare.pid,
      target: { url: `${bare.url}/chat/completions`, body: upstreamBody(false) },
    });
  if (bareFetch)
    list.push({
      id: 'b~',
      name: 'bare Nest + express, global fetch',
      serverPid: () => bareFetch.pid,
      target: { url: `${bareFetch.url}/chat/completions`, body: upstreamBody(false) },
    });
  if (portkey?.proc) {
    list.push({
      id: 'p',
      name: `Portkey gateway ${portkey.version}`,
      serverPid: () => portkey.proc.pid,
      target: { url: `${portkey.url}/chat/completions`, headers: portkey.headers, body: upstreamBody(false) },
    });
  }
  const invoke = JSON.stringify({ variables: VARIABLES, messages: [USER_MESSAGE] });
  list.push({
    id: 'c',
    name: 'Parley deployed prompt',
    usesDb: true,
    serverPid: () => parley.pid,
    target: { url: `${parley.url}${setup.promptPath}`, headers: key, body: invoke },
  });
  // Right after (c), so the two take turns side by side (issue 42 compares them): the same content
  // and request, plus a `user`, on a 50/50 split sticky by user. The users alternate between one
  // the control serves and one version 2 serves, so every other call takes the arm path.
  if (setup.split?.users)
    list.push({
      id: 'i',
      name: 'Parley deployed prompt, 50/50 split by user',
      usesDb: true,
      serverPid: () => parley.pid,
      arms: ['1', '2'],
      target: {
        url: parley.url,
        headers: key,
        requests: setup.split.users.map((user) => ({
          method: 'POST',
          path: setup.split.path,
          body: JSON.stringify({ variables: VARIABLES, messages: [USER_MESSAGE], user }),
        })),
      },
    });
  // Also beside (c) (issue 43 compares them): the same content and request on a version with a
  // two-target routing block whose first target is healthy.
  if (setup.routed?.path)
    list.push({
      id: 'j',
      name: 'Parley deployed prompt, two-target routing block',
      usesDb: true,
      serverPid: () => parley.pid,
      servedBy: setup.routed.provider,
      target: { url: `${parley.url}${setup.routed.path}`, headers: key, body: invoke },
    });
  // Also beside (c) (issue 45 compares them): the same deployed prompt and request through a Parley
  // whose OpenTelemetry export is on, to a loopback OTLP receiver.
  if (parleyOtel)
    list.push({
      id: 'k',
      name: 'Parley deployed prompt, OTLP export on',
      usesDb: true,
      serverPid: () => parleyOtel.pid,
      target: { url: `${parleyOtel.url}${setup.promptPath}`, headers: key, body: invoke },
    });
  list.push(
    {
      id: 'd',
      name: 'Parley assistant + thread',
      usesDb: true,
      thread: true,
      serverPid: () => parley.pid,
      target: { url: parley.url, headers: key, requests: conversation(setup.assistantPath, false) },
    },
    {
      id: 'e',
      name: 'Parley assistant streamed',
      usesDb: true,
      thread: true,
      stream: true,
      serverPid: () => parley.pid,
      target: { url: parley.url, headers: key, requests: conversation(setup.assistantPath, true) },
    },
    {
      id: 'g',
      name: 'Parley /v1/chat/completions, deployment',
      usesDb: true,
      serverPid: () => parley.pid,
      target: {
        url: `${parley.url}/v1/chat/completions`,
        headers: bearer,
        body: JSON.stringify({ model: 'bench-prompt@production', messages: [USER_MESSAGE], variables: VARIABLES }),
      },
    },
    {
      // Right after (g), so the two take turns side by side (issue 46 compares them). Headers as
      // the official @anthropic-ai/sdk sends them; max_tokens (required by the Messages API) is the
      // deployment's own 64, so the upstream gets the same body as for (c) and (g).
      id: 'h',
      name: 'Parley /v1/messages, deployment',
      usesDb: true,
      serverPid: () => parley.pid,
      target: {
        url: `${parley.url}/v1/messages`,
        headers: { ...key, 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model: 'bench-prompt@production', max_tokens: 64, messages: [USER_MESSAGE], variables: VARIABLES }),
      },
    },
    {
      id: 'f',
      name: 'Parley /v1/responses, conversation',
      usesDb: true,
      serverPid: () => parley.pid,
      target: { url: parley.url, headers: bearer, requests: responsesConversation() },
    },
  );
  return list;
}

/**
 * One request outside the load (one per arm for a split), to fail early and clearly when a
 * scenario does not work. Answers how many calls it made that a request log records.
 */
async function sanityCheck(scenario) {
  if (scenario.id === 'f') {
    await sanityCheckResponses(scenario);
    return 1;
  }
  if (!scenario.arms) {
    await sanityCheckOne(scenario, 0);
    return 1;
  }
  // The split: request i's user is served by arm i.
  for (const [i, version] of scenario.arms.entries()) {
    const served = await sanityCheckOne(scenario, i);
    if (served !== version)
      throw new Error(`scenario ${scenario.id} (${scenario.name}): request ${i} was served by version ${served}, not ${version}`);
  }
  return scenario.arms.length;
}

/** Request `index` of a scenario; answers the version that served it (x-parley-version). */
async function sanityCheckOne(scenario, index) {
  const t = scenario.target;
  const first = t.requests ? t.requests[index] : { path: '', body: t.body };
  const url = t.requests ? new URL(first.path, t.url).href : t.url;
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(t.headers || {}) }, body: first.body });
  const text = await res.text();
  const problem = (why) => new Error(`scenario ${scenario.id} (${scenario.name}): ${why}\n${res.status} ${text.slice(0, 600)}`);
  if (res.status !== 200) throw problem('sanity request failed');
  if (scenario.stream) {
    if (!/^data: /.test(text) || !text.includes('data: [DONE]') || !text.includes('Summarize'))
      throw problem('not a chat.completion.chunk stream echoing the message');
  } else if (scenario.id === 'h') {
    const message = JSON.parse(text);
    if (message.type !== 'message' || message.role !== 'assistant' || !Array.isArray(message.content))
      throw problem("not an Anthropic Message (type 'message', role 'assistant', content blocks)");
    if (message.content[0]?.type !== 'text' || message.content[0].text !== USER_MESSAGE.content)
      throw problem("the Message's text does not echo the user message");
  } else if (JSON.parse(text).choices?.[0]?.message?.content !== USER_MESSAGE.content) {
    throw problem('the reply does not echo the user message');
  }
  if (scenario.thread && !threadIdOf(res.headers)) throw problem('no thread-id header');
  if (scenario.servedBy && (res.headers.get('x-parley-provider') !== scenario.servedBy || res.headers.get('x-parley-attempts') !== '1'))
    throw problem(`not served by "${scenario.servedBy}" in one attempt (x-parley-provider, x-parley-attempts)`);
  return res.headers.get('x-parley-version');
}

/** Scenario f: a conversation is created, and a response on it echoes the input. */
async function sanityCheckResponses(scenario) {
  const t = scenario.target;
  const post = (path, body) =>
    fetch(new URL(path, t.url).href, { method: 'POST', headers: { 'content-type': 'application/json', ...t.headers }, body });
  const created = await post('/v1/conversations', '{}');
  const conversation = created.status === 200 ? (await created.json()).id : null;
  if (!conversation) throw new Error(`scenario f: POST /v1/conversations answered ${created.status}`);
  const context = { conversation };
  const res = await post('/v1/responses', t.requests[1].setupRequest({}, context).body);
  const text = await res.text();
  const output = res.status === 200 ? JSON.parse(text).output?.[0]?.content?.[0]?.text : undefined;
  if (output !== USER_MESSAGE.content)
    throw new Error(`scenario f (${scenario.name}): the response does not echo the input\n${res.status} ${text.slice(0, 600)}`);
}

module.exports = { scenariosOf, sanityCheck, threadIdOf, USER_MESSAGE, VARIABLES };
