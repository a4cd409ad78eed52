import { InitResult } from './init.service';

const RULE = '='.repeat(100);

/**
 * What a newcomer sees on the first start: the keys (shown this once) and a request that works.
 * Printed last, after every log line of the start, between two rules so it cannot be missed.
 */
export function printFirstRunBanner(result: InitResult, url: string): void {
  const lines = [
    '',
    RULE,
    'Parley is ready. First start: created workspace "default" with project "default".',
    '',
    'Project API key (shown only now; Parley keeps only its hash):',
    `  export PARLEY_KEY=${result.projectKey}`,
  ];
  if (result.adminKey) {
    lines.push(
      '',
      'Admin API key (manages workspaces, projects and keys; shown only now):',
      `  export PARLEY_ADMIN_KEY=${result.adminKey}`,
    );
  }
  const json = `-H "X-API-Key: $PARLEY_KEY" -H 'Content-Type: application/json'`;
  lines.push('', 'Try it:');
  if (result.demo) {
    const base = `${url}/${result.workspace}/${result.project}`;
    const { prompt, assistant, environment } = result.demo;
    lines.push(
      `  # the demo prompt and assistant run on the built-in "local" provider, model "echo": it repeats your last message (not a language model)`,
      `  curl -s -X POST ${base}/${prompt}/${environment} ${json} -d '{"variables":{"name":"Ada"},"messages":[{"role":"user","content":"Hello!"}]}'`,
      `  curl -s -i -X POST ${base}/${assistant}/${environment} ${json} -d '{"messages":[{"role":"user","content":"Hi there"}]}'`,
      '  # what is deployed where',
      `  curl -s ${url}/v2/deployments -H "X-API-Key: $PARLEY_KEY"`,
    );
  }
  lines.push(
    `  curl -s -X POST ${url}/v2/threads ${json} -d '{"metadata":{"hello":"world"}}'`,
    '',
    `Console: ${url}/console (sign in with the project key above)`,
    `Swagger UI: ${url}/docs`,
    RULE,
    '',
  );
  console.log(lines.join('\n'));
}
