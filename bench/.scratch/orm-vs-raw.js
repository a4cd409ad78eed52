require('/work/main/node_modules/reflect-metadata');
const { DataSource } = require('/work/main/node_modules/typeorm');
const { loadAppConfig } = require('/work/main/dist/config/app-config');
const { buildDataSourceOptions } = require('/work/main/dist/database/data-source-options');
const { RequestLogEntity } = require('/work/main/dist/request-logs/request-log.entity');
const { newId } = require('/work/main/dist/common/ids');
(async () => {
  const ds = await new DataSource(buildDataSourceOptions(loadAppConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1/parley_probe' }))).initialize();
  const repo = ds.getRepository(RequestLogEntity);
  const pid = newId();
  const mk = () => Object.assign(new RequestLogEntity(), { projectId: pid, id: newId(), apiKeyId: newId(), threadId: null, promptId: newId(), promptSlug: 'bench-prompt', kind: 'prompt', environment: 'production', deploymentId: newId(), deploymentVersion: 1, version: 1, promptHistoryHash: 'abc', providerName: 'fake', providerType: 'openai', credentialId: newId(), model: 'gpt-bench', url: '/bench/perf/bench-prompt/production', requestIp: '127.0.0.1', stream: false, doNotRecord: false, metadata: {}, variables: { language: 'English', audience: 'engineers' }, parameters: { temperature: 0.2, max_tokens: 64 }, requestData: { variables: { language: 'English' }, messages: [{ role: 'user', content: 'Summarize the release notes' }] }, providerRequest: { model: 'gpt-bench', messages: [{ role: 'system', content: 'x' }, { role: 'user', content: 'y' }] }, providerResponse: { id: 'x', choices: [{ index: 0, message: { role: 'assistant', content: 'y' } }] }, status: 200, error: null, latencyMs: 3, ttftMs: null, promptTokens: 10, completionTokens: 5, totalTokens: 15, startedAt: new Date() });
  const meta = ds.getMetadata(RequestLogEntity);
  const cols = meta.columns;
  const sql = `INSERT INTO request_logs (${cols.map((c) => `"${c.databaseName}"`).join(', ')}) VALUES (${cols.map((c, i) => `$${i + 1}`).join(', ')})`;
  const raw = (log) => ds.query(sql, cols.map((c) => { const v = log[c.propertyName]; return c.type === 'jsonb' && v !== null && v !== undefined ? JSON.stringify(v) : v; }));
  const N = 1500;
  const time = async (name, fn) => {
    const c0 = process.cpuUsage(); const t0 = process.hrtime.bigint();
    for (let i = 0; i < N; i++) await fn();
    const c = process.cpuUsage(c0); const t = Number(process.hrtime.bigint() - t0) / 1e3 / N;
    console.log(name.padEnd(20), 'wall µs', t.toFixed(0), 'cpu µs', ((c.user + c.system) / N).toFixed(0));
  };
  for (let r = 0; r < 3; r++) {
    await time('typeorm insert', () => repo.insert(mk()));
    await time('raw query', () => raw(mk()));
    await time('select 1', () => ds.query('SELECT 1'));
  }
  await ds.destroy();
})();
