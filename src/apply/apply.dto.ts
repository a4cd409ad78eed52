import { openApiSchemaOf } from '../common/swagger/zod-schema';
import { Optional, Text } from '../common/validation';
import { applyFileSchema, promptSchema } from './apply-file.schema';

const EXAMPLE_YAML = `workspace: acme
project: support
prompts:
  - slug: summarize
    kind: prompt
    provider: local
    model: echo
    parameters: { temperature: 0.2, max_tokens: 200 }
    variables: { audience: engineers }
    template:
      - { role: system, content: "Summarize for {{audience}}." }
    deploy: [production]
`;

/** Swagger for POST /v2/apply: the file text, or the document as JSON (validated by the service, every problem reported). */
export const APPLY_BODY_SCHEMA = {
  oneOf: [
    {
      type: 'object',
      required: ['yaml'],
      properties: { yaml: { type: 'string', description: 'the text of parley.yaml; errors then carry line numbers' } },
      additionalProperties: false,
    },
    {
      ...openApiSchemaOf(applyFileSchema.extend({ prompts: promptSchema.array().optional() })),
      description: 'the parley.yaml document as JSON',
    },
  ],
};

export const APPLY_BODY_EXAMPLES = {
  yaml: { summary: 'the file text (what `parley apply --url` sends)', value: { yaml: EXAMPLE_YAML } },
  json: {
    summary: 'the document as JSON',
    value: {
      workspace: 'acme',
      project: 'support',
      prompts: [
        {
          slug: 'summarize',
          model: 'echo',
          template: [{ role: 'system', content: 'Summarize for {{audience}}.' }],
          variables: { audience: 'engineers' },
          deploy: ['production'],
        },
      ],
    },
  },
};

export class ExportQuery {
  @Optional()
  @Text({ max: 64, example: 'acme', description: 'required with the admin key; a project key exports its own project' })
  workspace?: string;

  @Optional()
  @Text({ max: 64, example: 'support' })
  project?: string;
}
