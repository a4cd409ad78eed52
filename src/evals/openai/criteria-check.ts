import { targetOfModel } from '../../invocation/model-name';
import { messageText, templateProblem } from './criteria';
import type { TemplateMessage, TestingCriterionInput } from './openai-evals.schemas';

/** What a 400 names: the parameter at fault (`testing_criteria[0].evaluation_metric`) and why. */
export interface Refusal {
  param: string;
  message: string;
}

/** What a `model` names, as every `/v1` surface reads it (src/invocation/model-name.ts). */
export const targetOfModelName = targetOfModel;

/** The first template message that cannot be rendered (an image, audio, or a `{{...}}` that is no item or sample reference). */
export function messagesRefusal(messages: TemplateMessage[], at: string): Refusal | null {
  for (const [j, message] of messages.entries()) {
    const text = messageText(message.content);
    if (text === null)
      return { param: `${at}[${j}].content`, message: 'Parley renders text only: images and audio are not supported here' };
    const problem = templateProblem(text);
    if (problem) return { param: `${at}[${j}].content`, message: `The template cannot be rendered: ${problem}` };
  }
  return null;
}

/**
 * What cannot map onto Parley's grading, before anything is stored (docs/evals.md, "OpenAI's
 * Evals API"): python graders (Parley runs no code), similarity metrics other than fuzzy_match,
 * templates that name neither `item` nor `sample`, images and audio, passing labels that are not
 * labels, an empty score range, a model name that is neither a deployment nor `provider/model`.
 */
export function criteriaRefusal(criteria: TestingCriterionInput[]): Refusal | null {
  for (const [i, criterion] of criteria.entries()) {
    const at = `testing_criteria[${i}]`;
    switch (criterion.type) {
      case 'python':
        return {
          param: `${at}.type`,
          message: 'Parley does not run python graders: use string_check, text_similarity, label_model or score_model',
        };
      case 'text_similarity':
      case 'string_check': {
        if (criterion.type === 'text_similarity' && criterion.evaluation_metric !== 'fuzzy_match')
          return {
            param: `${at}.evaluation_metric`,
            message: `evaluation_metric "${criterion.evaluation_metric}" is not supported: Parley computes fuzzy_match only`,
          };
        for (const field of ['input', 'reference'] as const) {
          const problem = templateProblem(criterion[field]);
          if (problem) return { param: `${at}.${field}`, message: `The template cannot be rendered: ${problem}` };
        }
        break;
      }
      case 'label_model':
      case 'score_model': {
        if (!targetOfModelName(criterion.model))
          return { param: `${at}.model`, message: `The model '${criterion.model}' is neither <slug>@<environment> nor <provider>/<model>` };
        const refusal = messagesRefusal(criterion.input, `${at}.input`);
        if (refusal) return refusal;
        if (criterion.type === 'label_model') {
          const stray = criterion.passing_labels.find((label) => !criterion.labels.includes(label));
          if (stray !== undefined) return { param: `${at}.passing_labels`, message: `"${stray}" is not one of labels` };
        } else if (criterion.range && !(criterion.range[0] < criterion.range[1])) {
          return { param: `${at}.range`, message: 'range must be [min, max] with min < max' };
        }
        break;
      }
    }
  }
  return null;
}
