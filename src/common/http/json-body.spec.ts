import express from 'express';
import request from 'supertest';

import { MALFORMED_JSON_BODY, NESTED_TOO_DEEP_BODY } from '../errors/request-body';
import { jsonBody } from './json-body';

/** What the endpoint behind the body parser sees. */
function app() {
  const server = express();
  server.use(jsonBody('1mb'));
  server.post(
    '/',
    (req, res) =>
      void res.json({ malformed: req.body === MALFORMED_JSON_BODY, tooDeep: req.body === NESTED_TOO_DEEP_BODY, body: req.body }),
  );
  return server;
}

const post = (raw: string, type = 'application/json') => request(app()).post('/').set('content-type', type).send(raw);

describe('jsonBody', () => {
  it('parses JSON whatever the content type, escapes included', async () => {
    expect((await post('{"a":[1,"x"]}', 'text/plain')).body).toEqual({ malformed: false, tooDeep: false, body: { a: [1, 'x'] } });
    expect((await post('{"\\u00e9":"\\ud83e\\udd9c \\u0041"}')).body).toEqual({ malformed: false, tooDeep: false, body: { é: '🦜 A' } });
  });

  it('marks text PostgreSQL cannot store as malformed, in keys and values at any depth', async () => {
    for (const bad of ['\\u0000', 'a\\ud800', '\\udc00b', '\\uD800']) {
      expect((await post(`{"a":"${bad}"}`)).body.malformed).toBe(true);
      expect((await post(`{"${bad}":1}`)).body.malformed).toBe(true);
      expect((await post(`[1,{"b":[{"c":"${bad}"}]}]`)).body.malformed).toBe(true);
      expect((await post(`"${bad}"`)).body.malformed).toBe(true);
    }
  });

  it('marks bodies nested more than 64 levels deep, however deep, before anything walks them', async () => {
    const nested = (levels: number, inner = '1') => `${'['.repeat(levels)}${inner}${']'.repeat(levels)}`;
    expect((await post(nested(64))).body.tooDeep).toBe(false);
    expect((await post(nested(65))).body.tooDeep).toBe(true);
    expect((await post(`{"a":${nested(63, '{}')}}`)).body.tooDeep).toBe(true);
    expect((await post(nested(200_000, '"\\u0000"'))).body.tooDeep).toBe(true);
    // Many brackets side by side, or inside strings, are not depth.
    expect((await post(`[${Array(500).fill('[{}]').join(',')}]`)).body.tooDeep).toBe(false);
    expect((await post(`{"a":"${'['.repeat(500)}"}`)).body.tooDeep).toBe(false);
  });

  it('checks wide bodies with escapes without failing', async () => {
    // An escape anywhere makes the whole body checked: 200,000 items after it.
    const wide = `["\\u0041",${Array(200_000).fill('"ok"').join(',')}]`;
    expect((await post(wide)).body.malformed).toBe(false);
  });

  it('marks text that is not JSON as malformed', async () => {
    expect((await post('{"a":')).body.malformed).toBe(true);
  });
});
