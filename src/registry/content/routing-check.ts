import type { ChatCompletionMessageParam, ChatCompletionTool, ProviderRequest } from '../../providers';
import { unhonouredFields } from '../../providers';
import type { ContentIssue } from './version-content';
import type { VersionContent } from './version-content.schema';

/**
 * A routing block's targets against the project's providers (docs/routing.md, "The routing block"):
 * each target's provider must exist, and its type must honour the version's tools, response format
 * and reasoning as that target would send them (the version's parameters with the target's own
 * over them). `typeOf` answers a provider name's type, or undefined when the project has none.
 */
export function routingIssues(content: VersionContent, typeOf: (provider: string) => string | undefined): ContentIssue[] {
  const issues: ContentIssue[] = [];
  content.routing?.targets.forEach((target, index) => {
    const path = ['routing', 'targets', index];
    const type = typeOf(target.provider);
    if (!type) {
      issues.push({
        path: [...path, 'provider'],
        message: `no provider "${target.provider}" in this project (use "local" or create a provider credential)`,
      });
      return;
    }
    const own = (target.parameters ?? {}) as Record<string, unknown>;
    const request = {
      model: target.model,
      // The template as written: what a rendered request would hold does not change which fields it has.
      messages: content.template as ChatCompletionMessageParam[],
      ...(content.tools.length > 0 ? { tools: content.tools as ChatCompletionTool[] } : {}),
      ...content.parameters,
      ...own,
    } as ProviderRequest;
    for (const field of unhonouredFields(type, request)) {
      const from = field in own ? "this target's parameters" : field === 'tools' ? "the version's tools" : "the version's parameters";
      const remedy =
        field === 'tools' ? 'route to another provider' : "override it in this target's parameters, or route to another provider";
      issues.push({
        path,
        message: `provider "${target.provider}" is of type ${type}, which cannot honour ${describeField(field, request)} (from ${from}): ${remedy}`,
      });
    }
  });
  return issues;
}

function describeField(field: string, request: ProviderRequest): string {
  if (field === 'response_format') return `response_format "${request.response_format?.type}"`;
  if (field === 'reasoning_effort') return `reasoning_effort "${request.reasoning_effort}"`;
  return field;
}
