import OpenAI from 'openai';

import { FakeUpstream as AnthropicFake, startFakeAnthropicUpstream } from './fakes/fake-anthropic-upstream';
import { FakeUpstream, startFakeOpenAIUpstream } from './fakes/fake-openai-upstream';
import { createProject, TestProject } from './support/factories';
import { addProviderCredential, INVOKE_APP_ENV, listen } from './support/invoke-factories';
import { expectResponseResource } from './support/open-responses-schema';
import { createTestApp, TestApp } from './support/test-app';

/** `input_file` parts on /v1/responses and /v1/conversations, through the official SDK, per provider. */
describe('responses and conversations: input_file parts', () => {
  let t: TestApp;
  let p: TestProject;
  let openai: OpenAI;
  let oaFake: FakeUpstream;
  let anFake: AnthropicFake;
  const pdf = `data:application/pdf;base64,${Buffer.from('%PDF-1.4 tiny').toString('base64')}`;
  const text = `data:text/plain;base64,${Buffer.from('Plain notes.').toString('base64')}`;
  const fileMessage = (file: Record<string, string>, words = 'Summarize the file.') => [
    {
      role: 'user' as const,
      content: [
        { type: 'input_text' as const, text: words },
        { type: 'input_file' as const, ...file },
      ],
    },
  ];

  beforeAll(async () => {
    oaFake = await startFakeOpenAIUpstream();
    anFake = await startFakeAnthropicUpstream();
    t = await createTestApp(INVOKE_APP_ENV);
    const base = await listen(t);
    p = await createProject(t);
    openai = new OpenAI({ baseURL: `${base}/v1`, apiKey: p.key, maxRetries: 0 });
    await addProviderCredential(t, p, { name: 'upstream', type: 'openai', baseUrl: oaFake.url, apiKey: 'sk-up' });
    await addProviderCredential(t, p, { name: 'claude', type: 'anthropic', baseUrl: anFake.url, apiKey: 'sk-ant' });
  });
  afterAll(async () => {
    await t.close();
    await oaFake.close();
    await anFake.close();
  });

  it('OpenAI-compatible: file_data with filename becomes a chat-completion file part', async () => {
    const response = await openai.responses.create({
      model: 'upstream/gpt-files',
      input: fileMessage({ filename: 'report.pdf', file_data: pdf }),
    });
    expectResponseResource(response);
    expect(response.output_text).toBe('Summarize the file.');
    expect(oaFake.requests.at(-1)!.body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Summarize the file.' },
          { type: 'file', file: { filename: 'report.pdf', file_data: pdf } },
        ],
      },
    ]);
  });

  it('OpenAI-compatible: file_url is a 400 before any upstream call (the chat-completion API takes no file URL)', async () => {
    const before = oaFake.requests.length;
    const err = await openai.responses
      .create({ model: 'upstream/gpt-files', input: fileMessage({ file_url: 'https://example.com/a.pdf' }) })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).message).toMatch(/file_url/);
    expect(oaFake.requests.length).toBe(before);
  });

  it('Anthropic: PDF data, plain text and file_url become document blocks; other types are a 400', async () => {
    await openai.responses.create({ model: 'claude/claude-files', input: fileMessage({ filename: 'report.pdf', file_data: pdf }) });
    expect(anFake.requests.at(-1)!.body.messages[0].content).toEqual([
      { type: 'text', text: 'Summarize the file.' },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf.split(',')[1] }, title: 'report.pdf' },
    ]);
    expect(anFake.requests.at(-1)!.headers['x-api-key']).toBe('sk-ant');
    await openai.responses.create({ model: 'claude/claude-files', input: fileMessage({ filename: 'notes.txt', file_data: text }) });
    expect(anFake.requests.at(-1)!.body.messages[0].content[1]).toEqual({
      type: 'document',
      source: { type: 'text', media_type: 'text/plain', data: 'Plain notes.' },
      title: 'notes.txt',
    });
    await openai.responses.create({ model: 'claude/claude-files', input: fileMessage({ file_url: 'https://example.com/a.pdf' }) });
    expect(anFake.requests.at(-1)!.body.messages[0].content[1]).toEqual({
      type: 'document',
      source: { type: 'url', url: 'https://example.com/a.pdf' },
    });

    const before = anFake.requests.length;
    const csv = `data:text/csv;base64,${Buffer.from('a,b').toString('base64')}`;
    await expect(
      openai.responses.create({ model: 'claude/claude-files', input: fileMessage({ filename: 'x.csv', file_data: csv }) }),
    ).rejects.toThrow(/text\/csv/);
    expect(anFake.requests.length).toBe(before);
  });

  it('malformed input_file parts are 400s naming the part', async () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ filename: 'a.pdf', file_data: 'JVBERi0=' }, /data URL/],
      [{ filename: 'a.pdf' }, /file_data .* or file_url/],
      [{ file_url: 'ftp://example.com/a.pdf' }, /http\(s\) URL/],
    ];
    for (const [file, message] of cases) {
      const err = (await openai.responses
        .create({ model: 'local/echo', input: fileMessage(file) })
        .catch((e: unknown) => e)) as InstanceType<typeof OpenAI.BadRequestError>;
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      expect(err.message).toMatch(message);
      expect(err.param).toMatch(/^input\[0\]\.content\[1\]/);
    }
    const assistantFile = [{ role: 'assistant' as const, content: [{ type: 'input_file', filename: 'a.pdf', file_data: pdf }] }];
    await expect(openai.responses.create({ model: 'local/echo', input: assistantFile as never })).rejects.toThrow(
      /Only user messages can carry files/,
    );
  });

  it('conversation items keep input_file parts; the next turn sends them to the provider again', async () => {
    const conversation = await openai.conversations.create({
      items: fileMessage({ filename: 'report.pdf', file_data: pdf }, 'Keep this file.'),
    });
    const items = await openai.conversations.items.list(conversation.id, { order: 'asc' });
    expect(items.data[0]).toMatchObject({
      type: 'message',
      role: 'user',
      content: [
        { type: 'input_text', text: 'Keep this file.' },
        { type: 'input_file', filename: 'report.pdf', file_data: pdf },
      ],
    });
    await openai.responses.create({ model: 'upstream/gpt-files', input: 'What was in it?', conversation: conversation.id });
    expect(oaFake.requests.at(-1)!.body.messages[0].content[1]).toEqual({ type: 'file', file: { filename: 'report.pdf', file_data: pdf } });
  });
});
