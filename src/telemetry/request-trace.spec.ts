import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

import { NO_TRACE, PassiveTrace, requestTraceOf, traceIdOfTraceparent } from './request-trace';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

describe('traceIdOfTraceparent (W3C Trace Context)', () => {
  it('reads the trace id of a valid header', () => {
    expect(traceIdOfTraceparent(`00-${TRACE}-00f067aa0ba902b7-01`)).toBe(TRACE);
    expect(traceIdOfTraceparent(`00-${TRACE}-00f067aa0ba902b7-00`)).toBe(TRACE);
    // A later version may carry more after the flags.
    expect(traceIdOfTraceparent(`01-${TRACE}-00f067aa0ba902b7-01-extra`)).toBe(TRACE);
  });

  it.each([
    `ff-${TRACE}-00f067aa0ba902b7-01`,
    `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`,
    `00-${TRACE}-${'0'.repeat(16)}-01`,
    `00-${TRACE}-00f067aa0ba902b7-01-extra`,
    `00-${TRACE.toUpperCase()}-00f067aa0ba902b7-01`,
    `00-${TRACE}-00f067aa0ba902b7`,
    'garbage',
    '',
    ['a', 'b'],
    undefined,
  ])('refuses %j', (header) => {
    expect(traceIdOfTraceparent(header)).toBeNull();
  });
});

describe('requestTraceOf, with the export off', () => {
  it('is the no-op singleton without a traceparent, and knows only the id with one', () => {
    expect(requestTraceOf({ headers: {} })).toBe(NO_TRACE);
    expect(requestTraceOf({ headers: { traceparent: 'garbage' } })).toBe(NO_TRACE);
    const passive = requestTraceOf({ headers: { traceparent: `00-${TRACE}-00f067aa0ba902b7-01` } });
    expect(passive).toBeInstanceOf(PassiveTrace);
    expect(passive).toMatchObject({ enabled: false, traceId: TRACE });
    expect(passive.carried()).toBeNull();
  });
});

describe('with the export off, the OpenTelemetry SDK is never loaded', () => {
  it('the application, its edge and its off Telemetry load no OpenTelemetry SDK module, nor the code that uses one', () => {
    const root = path.join(__dirname, '..', '..');
    const script = `
      require('reflect-metadata');
      require('./src/app.module');
      require('./src/app.setup');
      const { Telemetry } = require('./src/telemetry/telemetry');
      const { loadAppConfig } = require('./src/config/app-config');
      Telemetry.start(loadAppConfig({}).telemetry).then((telemetry) => {
        // @opentelemetry/api alone is prom-client's own (its exemplars), loaded whatever Parley does.
        const loaded = Object.keys(require.cache).filter(
          (file) => (file.includes('@opentelemetry') && !file.includes('@opentelemetry/api/')) ||
            /src.telemetry.(otel-backend|sdk-traces|gen-ai-attributes|http-server-span|telemetry-sdk|span-outcomes)/.test(file),
        );
        process.stdout.write(JSON.stringify({ enabled: telemetry.enabled, loaded }));
      });
    `;
    const run = spawnSync(process.execPath, ['-r', '@swc-node/register', '-e', script], { cwd: root, encoding: 'utf8', timeout: 120_000 });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ enabled: false, loaded: [] });
  });
});
