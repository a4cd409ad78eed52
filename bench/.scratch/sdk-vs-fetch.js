const { fork } = require('child_process');
const OpenAI = require('/work/main/node_modules/openai').default;
(async () => {
  const up = fork('/work/main/bench/lib/fake-upstream.js', [], { stdio: 'ignore' });
  const url = await new Promise((r) => up.on('message', (m) => r(m.url)));
  const body = { model: 'gpt-bench', messages: [{ role: 'system', content: 'You are a concise assistant.' }, { role: 'user', content: 'Summarize the release notes in two short sentences please.' }], temperature: 0.2, max_tokens: 64 };
  const client = new OpenAI({ baseURL: url, apiKey: 'sk', maxRetries: 2, timeout: 60000 });
  const N = 3000;
  const time = async (name, fn) => {
    for (let i = 0; i < 300; i++) await fn();
    const c0 = process.cpuUsage(); const t0 = process.hrtime.bigint();
    for (let i = 0; i < N; i++) await fn();
    const c = process.cpuUsage(c0); const t = Number(process.hrtime.bigint() - t0) / 1e3 / N;
    console.log(name.padEnd(20), 'wall µs/call', t.toFixed(0), 'cpu µs/call', ((c.user + c.system) / N).toFixed(0));
  };
  for (let r = 0; r < 2; r++) {
    await time('fetch', async () => { const res = await fetch(url + '/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sk' }, body: JSON.stringify(body) }); return res.json(); });
    await time('openai sdk', () => client.chat.completions.create(body, { timeout: 60000, maxRetries: 2, signal: new AbortController().signal }));
    const http = require('http'); const agent = new http.Agent({ keepAlive: true });
    const u = new URL(url + '/chat/completions');
    await time('node http', () => new Promise((resolve, reject) => { const data = JSON.stringify(body); const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', agent, headers: { 'content-type': 'application/json', authorization: 'Bearer sk', 'content-length': Buffer.byteLength(data) } }, (res) => { const parts = []; res.on('data', (d) => parts.push(d)); res.on('end', () => resolve(JSON.parse(Buffer.concat(parts).toString()))); }); req.on('error', reject); req.end(data); }));
  }
  up.kill();
})();
