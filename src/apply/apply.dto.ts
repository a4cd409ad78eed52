import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';

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

/** POST /v2/apply's options (docs/apply.md, "Pruning" and "Dry run"). */
export class ApplyQuery {
  @Optional()
  @ApiProperty({
    enum: ['true', 'false'],
    default: 'false',
    description:
      'true: also archive the prompts and assistants the file no longer lists, and delete the environments it no longer names; what is still deployed (or protected) is kept, and `pruned` says why',
  })
  @IsIn(['true', 'false'])
  prune?: 'true' | 'false';

  @Optional()
  @ApiProperty({
    enum: ['true', 'false'],
    default: 'false',
    description: 'true: answer the summary of what applying would do (`dryRun: true`), with every check made; nothing is written',
  })
  @IsIn(['true', 'false'])
  dryRun?: 'true' | 'false';
}
