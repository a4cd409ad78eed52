import { FakeUpstream, openaiChunks, openaiStream, startFakeOpenAIUpstream } from '../../test/fakes/fake-openai-upstream';
import { OpenAIProvider } from './openai.provider';
import OpenAI from 'openai';

it('debug', async () => {
  const fake: FakeUpstream = await startFakeOpenAIUpstream();
  const provider = new OpenAIProvider();
  const creds = { type: 'openai' as const, baseUrl: fake.url, apiKey: 'k' };
  fake.setNext({ type: 'hang' });
  try { await provider.complete({ model: 'm', messages: [{ role: 'user', content: 'x' }] }, creds, { timeoutMs: 300, maxRetries: 0 }); } catch (e: any) { console.log('timeout case', e.message, e.cause?.constructor?.name, e.cause?.cause, e.cause?.cause?.name); }
  const client = new OpenAI({ apiKey: 'k', baseURL: fake.url });
  await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
  await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
  await fetch(fake.url + '/chat/completions', { method: 'POST', body: '{}' }).then(r => r.text());
  await fetch(fake.url + '/chat/completions', { method: 'POST', body: '{}' }).then(r => r.text());
  console.log(fake.requests.map(r => [r.remotePort, r.headers.connection]));
  fake.setNext(openaiStream(openaiChunks({ content: ['a', ' b'] }).slice(0, 2), { keepOpen: true }));
  const controller = new AbortController();
  const it = provider.stream({ model: 'm', messages: [{ role: 'user', content: 'x' }] }, creds, { signal: controller.signal })[Symbol.asyncIterator]();
  console.log(JSON.stringify(await it.next()));
  controller.abort();
  try { console.log('second', JSON.stringify(await it.next())); } catch (e: any) { console.log('err', e.kind, e.message); }
  await fake.close();
});
