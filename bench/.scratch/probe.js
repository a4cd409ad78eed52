const { Client } = require('/work/main/node_modules/pg');
(async () => {
  const c = new Client({ host: '127.0.0.1', user: 'postgres', database: 'postgres' });
  await c.connect();
  for (const sql of ['SELECT 1', 'INSERT INTO zz_bench_probe VALUES (1)']) {
    const t = [];
    for (let i = 0; i < 2000; i++) { const s = process.hrtime.bigint(); await c.query(sql); t.push(Number(process.hrtime.bigint() - s) / 1e6); }
    t.sort((a, b) => a - b);
    console.log(sql, 'p50', t[1000].toFixed(3), 'p99', t[1980].toFixed(3));
  }
  await c.query('DROP TABLE zz_bench_probe');
  await c.end();
})();
