/** "Use it" snippets for one deployment: curl, the openai SDK (through /v1) and the langtail SDK. */
export function snippetsFor(input: {
  origin: string;
  workspace: string;
  project: string;
  slug: string;
  environment: string;
  variables: string[];
  assistant: boolean;
}) {
  const { origin, workspace, project, slug, environment } = input;
  const variables = Object.fromEntries(input.variables.map((name) => [name, '...']));
  const body = { ...(input.variables.length ? { variables } : {}), messages: [{ role: 'user', content: 'Hello!' }] };
  const curl = [
    `curl -s -X POST ${origin}/${workspace}/${project}/${slug}/${environment} \\`,
    `  -H "X-API-Key: $PARLEY_KEY" -H 'Content-Type: application/json' \\`,
    `  -d '${JSON.stringify(body)}'`,
  ].join('\n');
  const openai = [
    "import OpenAI from 'openai';",
    '',
    `const client = new OpenAI({ apiKey: process.env.PARLEY_KEY, baseURL: '${origin}/v1' });`,
    'const completion = await client.chat.completions.create({',
    `  model: '${slug}@${environment}',`,
    "  messages: [{ role: 'user', content: 'Hello!' }],",
    ...(input.variables.length
      ? [`  // @ts-expect-error Parley's extension: the template's variables`, `  variables: ${JSON.stringify(variables)},`]
      : []),
    '});',
    'console.log(completion.choices[0].message.content);',
  ].join('\n');
  const langtail = [
    "import { Langtail } from 'langtail';",
    '',
    `const lt = new Langtail({ apiKey: process.env.PARLEY_KEY, baseURL: '${origin}' });`,
    `const reply = await lt.${input.assistant ? 'assistants' : 'prompts'}.invoke({`,
    `  ${input.assistant ? 'assistant' : 'prompt'}: '${slug}',`,
    `  environment: '${environment}',`,
    ...(input.variables.length ? [`  variables: ${JSON.stringify(variables)},`] : []),
    "  messages: [{ role: 'user', content: 'Hello!' }],",
    '});',
    'console.log(reply.choices[0].message.content);',
  ].join('\n');
  return { curl, openai, langtail };
}
