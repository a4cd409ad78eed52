/**
 * What a first start puts in the default project so a newcomer can invoke something at once: a
 * prompt and an assistant on the built-in local/echo provider (not a language model: it answers
 * with the last user message), deployed to production. Seeded through apply, like any parley.yaml.
 */
export const DEMO_ENVIRONMENT = 'production';
export const DEMO_PROMPT = 'demo-prompt';
export const DEMO_ASSISTANT = 'demo-assistant';

export function demoDocument(workspace: string, project: string): object {
  return {
    workspace,
    project,
    prompts: [
      {
        slug: DEMO_PROMPT,
        kind: 'prompt',
        provider: 'local',
        model: 'echo',
        variables: { name: 'there' },
        template: [{ role: 'system', content: 'Greet {{name}} warmly, in one short sentence.' }],
        deploy: [DEMO_ENVIRONMENT],
      },
      {
        slug: DEMO_ASSISTANT,
        kind: 'assistant',
        provider: 'local',
        model: 'echo',
        variables: { company: 'Parley' },
        template: [{ role: 'system', content: 'You are the helpful assistant of {{company}}. Keep answers short.' }],
        deploy: [DEMO_ENVIRONMENT],
      },
    ],
  };
}
