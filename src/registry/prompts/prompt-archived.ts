import { OpenAIFieldsException } from '../../common/errors';
import { archivedMessage } from './prompts.service';

/**
 * An invoke of an archived prompt, assistant or embedding entry (docs/registry.md, "Archiving"):
 * the invoke endpoints' own 404 for "nothing to run here", `{error: "Prompt deployment not found"}`,
 * with a `message` that says why and how to restore it. The `/v1` surfaces re-shape it as their
 * other 404s of a model name (OpenAI's `model_not_found` at `model`, Anthropic's not_found_error).
 */
export class PromptArchived extends OpenAIFieldsException {
  readonly param = 'model';
  readonly detail: string;

  constructor(readonly slug: string) {
    const message = archivedMessage(slug, 'invoke it');
    super(404, { error: 'Prompt deployment not found', message }, {}, { type: 'invalid_request_error', code: 'model_not_found' });
    this.detail = message;
  }
}

/** `work`'s answer; an archived prompt's refusal is answered by `onArchived` instead (a surface with an error shape of its own). */
export async function ifArchived<T>(work: Promise<T>, onArchived: (refusal: PromptArchived) => T): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof PromptArchived) return onArchived(err);
    throw err;
  }
}
