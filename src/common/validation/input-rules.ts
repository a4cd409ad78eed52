import { SetMetadata } from '@nestjs/common';

const INPUT_RULES_KEY = 'parley:input-rules';

/** What the global InputValidationPipe answers when a DTO's input is invalid. */
export interface InputRules {
  /** The endpoint's documented error message for an invalid body or query. */
  message?: string;
  /** A field whose absence (or non-object value) has its own documented message, e.g. "Metadata is required". */
  requiredObject?: { field: string; message: string };
}

/**
 * Names a DTO's documented error message where the default does not fit (bodies: "Invalid request
 * body"; queries: "Invalid request parameters"), e.g. Create Thread Message's "Invalid request parameters".
 */
export const InputErrors = (rules: InputRules): ClassDecorator => SetMetadata(INPUT_RULES_KEY, rules);

export function inputRulesOf(metatype: object): InputRules {
  return (Reflect.getMetadata(INPUT_RULES_KEY, metatype) as InputRules | undefined) ?? {};
}
