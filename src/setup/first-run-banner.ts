import { InitResult } from './init.service';

/** What a newcomer sees on the first start: the keys (shown this once) and a request that works. */
export function printFirstRunBanner(result: InitResult, url: string): void {
  const lines = [
    '',
    'Parley is ready. First start: created workspace "default" with project "default".',
    '',
    'Project API key (shown only now; Parley keeps only its hash):',
    `  export PARLEY_KEY=${result.projectKey}`,
  ];
  if (result.adminKey) {
    lines.push('', 'Admin API key (manages workspaces, projects and keys; shown only now):', `  export PARLEY_ADMIN_KEY=${result.adminKey}`);
  }
  lines.push(
    '',
    'Try it:',
    `  curl -s -X POST ${url}/v2/threads -H "X-API-Key: $PARLEY_KEY" -H 'Content-Type: application/json' -d '{"metadata":{"hello":"world"}}'`,
    '',
    `Swagger UI: ${url}/docs`,
    '',
  );
  console.log(lines.join('\n'));
}
