import type { ChatMessage } from '../../common/chat';
import { prepareVersionContent } from '../../registry/content/version-content';
import type { VersionContent } from '../../registry/content/version-content.schema';
import type { DatasetItemInput } from '../datasets/dataset-item.schema';
import type { CreateRunBody as ExperimentBody } from '../runs/run.schema';
import { asText, chatRole, messageText, renderTemplate } from './criteria';
import type { Refusal } from './criteria-check';
import { messagesRefusal } from './criteria-check';
import type { SourceRowValue } from './criteria-grading';
import type { CompletionsDataSource, SourceRow, TemplateMessage } from './openai-evals.schemas';

/** How the experiment run of an OpenAI run is made: its target, and its dataset's items (one per row of the data source). */
export interface RunPlan {
  target: ExperimentBody['target'];
  items: DatasetItemInput[];
}

/** The target a completions run's `model` resolved to: a deployment with the variables its template declares, or a provider. */
export type ResolvedModel =
  | { type: 'deployment'; slug: string; environment: string; version?: number; declaredVariables: string[] }
  | { type: 'provider'; provider: string; model: string };

/**
 * The jsonl run's target: the samples given are the outputs graded. A draft on the built-in
 * `local/echo`, which answers with the last user message verbatim, replays each sample's
 * `output_text` (sent as the item's one message): no model is called, and the run's items go
 * through the same queue, grading and storage as every experiment's.
 */
export const REPLAY_DRAFT: VersionContent = {
  template: [
    { role: 'system', content: "Replays the samples of an OpenAI Evals jsonl run: local/echo answers with each sample's output_text." },
  ],
  provider: 'local',
  model: 'echo',
  parameters: {},
  tools: [],
  variables: {},
};

const REFERENCE = /\{\{\s*([^{}]*?)\s*\}\}/g;
const VARIABLE = /^item\.([A-Za-z_][A-Za-z0-9_-]{0,63})$/;
/** Names Handlebars would take for a helper or keyword: such a variable is read as `this.<name>` (docs/templates.md). */
const HELPER_NAMES = new Set([
  'if',
  'unless',
  'each',
  'with',
  'lookup',
  'log',
  'raw',
  'else',
  'this',
  'eq',
  'ne',
  'lt',
  'gt',
  'lte',
  'gte',
]);
const LOGIC_HELPERS = new Set(['and', 'or', 'not', 'default', 'json']);

const itemMetadata = (index: number) => ({ datasource_item_id: index });

/**
 * A run's `input_messages` template as the registry's Handlebars: `{{item.x}}` becomes the variable
 * `{{x}}` (each item's field `x` is its value). Other text is copied as it is: a `{{` that is not
 * an item reference, a nested path, or a backslash just before a reference is refused, since
 * Handlebars would read it.
 */
export function translateTemplate(messages: TemplateMessage[], at: string): { template: ChatMessage[]; variables: string[] } | Refusal {
  const refusal = messagesRefusal(messages, at);
  if (refusal) return refusal;
  const variables = new Set<string>();
  const template: ChatMessage[] = [];
  for (const [j, message] of messages.entries()) {
    const text = messageText(message.content)!;
    let problem = null as string | null;
    const translated = text.replace(REFERENCE, (whole, path: string, offset: number) => {
      const name = VARIABLE.exec(path)?.[1];
      if (name === undefined) problem ??= `"${whole}": a run's input messages read the item's top-level fields only ({{item.<field>}})`;
      else if (text[offset - 1] === '\\') problem ??= `the backslash before "${whole}" would escape it`;
      if (name === undefined) return whole;
      variables.add(name);
      return HELPER_NAMES.has(name) || LOGIC_HELPERS.has(name) ? `{{this.${name}}}` : `{{${name}}}`;
    });
    if (problem) return { param: `${at}[${j}].content`, message: `The template cannot be used: ${problem}` };
    template.push({ role: chatRole(message.role), content: translated });
  }
  return { template, variables: [...variables] };
}

/** The item's fields named, as the template's text variables (a missing field is left to render empty). */
function variablesOf(item: Record<string, unknown>, names: string[]): Record<string, string> {
  return Object.fromEntries(names.filter((name) => Object.hasOwn(item, name)).map((name) => [name, asText(item[name])]));
}

/** A jsonl run: the given samples replayed through local/echo (REPLAY_DRAFT); rows without a sample are graded on an empty output. */
export function planJsonl(rows: SourceRow[], at: string): RunPlan | Refusal {
  const items: DatasetItemInput[] = [];
  for (const [i, { item, sample }] of rows.entries()) {
    if (sample !== undefined && typeof sample.output_text !== 'string')
      return { param: `${at}[${i}].sample.output_text`, message: 'A sample needs output_text: the text that is graded' };
    const expected: SourceRowValue = sample === undefined ? { item } : { item, sample };
    const messages: ChatMessage[] = sample === undefined ? [] : [{ role: 'user', content: sample.output_text as string }];
    items.push({ variables: {}, messages, expected, metadata: itemMetadata(i) });
  }
  return { target: { draft: REPLAY_DRAFT }, items };
}

/** The draft's parameters from a run's `sampling_params` (`max_completion_tokens` is stored as the version parameter `max_tokens`). */
function draftParameters(sampling: CompletionsDataSource['sampling_params'], at: string): VersionContent['parameters'] | Refusal {
  if (!sampling) return {};
  if (sampling.tools !== undefined) return { param: `${at}.tools`, message: "tools are not supported in a run's sampling_params" };
  if (sampling.reasoning_effort != null)
    return { param: `${at}.reasoning_effort`, message: "reasoning_effort is not supported in a run's sampling_params" };
  const format = sampling.response_format?.type;
  if (sampling.response_format !== undefined && format !== 'text' && format !== 'json_object')
    return { param: `${at}.response_format`, message: 'response_format must be {"type": "text"} or {"type": "json_object"}' };
  return {
    ...(sampling.temperature !== undefined ? { temperature: sampling.temperature } : {}),
    ...(sampling.top_p !== undefined ? { top_p: sampling.top_p } : {}),
    ...(sampling.seed !== undefined ? { seed: sampling.seed } : {}),
    ...(sampling.max_completion_tokens !== undefined ? { max_tokens: sampling.max_completion_tokens } : {}),
    ...(format === 'text' || format === 'json_object' ? { response_format: { type: format } } : {}),
  };
}

/**
 * A completions run: on a deployment, the version live in that environment (fixed when the run is
 * created) with the item's fields its template declares as variables, and `input_messages` (if
 * any) rendered per item and sent after its template; on `provider/model`, a draft whose template
 * is `input_messages` translated to Handlebars, with the run's sampling_params.
 */
export function planCompletions(source: CompletionsDataSource, rows: SourceRow[], model: ResolvedModel): RunPlan | Refusal {
  const at = 'data_source';
  const sampled = rows.findIndex((row) => row.sample !== undefined);
  if (sampled >= 0)
    return { param: `${at}.source.content[${sampled}].sample`, message: 'A completions run makes its samples: give the rows without one' };
  const messages = source.input_messages;
  if (messages?.type === 'item_reference')
    return { param: `${at}.input_messages.type`, message: 'input_messages of type item_reference are not supported: use a template' };
  const expected = (item: Record<string, unknown>): SourceRowValue => ({ item });
  if (model.type === 'deployment') {
    if (source.sampling_params)
      return {
        param: `${at}.sampling_params`,
        message: "A deployed prompt runs with its version's settings: sampling_params apply to a <provider>/<model> run only",
      };
    const template = messages?.template ?? [];
    // The same templates as on provider/model (top-level item fields), rendered here per item instead of by Handlebars.
    const checked = translateTemplate(template, `${at}.input_messages.template`);
    if ('param' in checked) return checked;
    const target = model.version ? { prompt: model.slug, version: model.version } : { prompt: model.slug, environment: model.environment };
    const items = rows.map(({ item }, i) => ({
      variables: variablesOf(item, model.declaredVariables),
      messages: template.map((m) => ({ role: chatRole(m.role), content: renderTemplate(messageText(m.content)!, { item, sample: {} }) })),
      expected: expected(item),
      metadata: itemMetadata(i),
    }));
    return { target, items };
  }
  if (!messages) return { param: `${at}.input_messages`, message: 'input_messages is required when model is a <provider>/<model>' };
  const translated = translateTemplate(messages.template, `${at}.input_messages.template`);
  if ('param' in translated) return translated;
  const parameters = draftParameters(source.sampling_params, `${at}.sampling_params`);
  if ('param' in parameters) return parameters as Refusal;
  const draft = { template: translated.template, provider: model.provider, model: model.model, parameters, tools: [], variables: {} };
  const prepared = prepareVersionContent(draft);
  if (!prepared.ok) {
    const issue = prepared.issues[0];
    return { param: `${at}.input_messages.template`, message: `The template cannot be used: ${issue.path.join('.')}: ${issue.message}` };
  }
  const items = rows.map(({ item }, i) => ({
    variables: variablesOf(item, translated.variables),
    messages: [],
    expected: expected(item),
    metadata: itemMetadata(i),
  }));
  return { target: { draft: prepared.value.content }, items };
}
