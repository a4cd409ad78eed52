import { ApiProperty, ApiPropertyOptions } from '@nestjs/swagger';

import { METADATA_MAX_KEY_LENGTH, METADATA_MAX_KEYS, METADATA_MAX_STRING_LENGTH } from '../validation/metadata';

const DESCRIPTION =
  `at most ${METADATA_MAX_KEYS} keys of up to ${METADATA_MAX_KEY_LENGTH} characters; ` +
  `values are strings (up to ${METADATA_MAX_STRING_LENGTH} characters) or numbers`;

/** Swagger for a metadata object; `replaces` notes update semantics. */
export function ApiMetadataProperty(options: { required: boolean; replaces?: boolean }): PropertyDecorator {
  return ApiProperty({
    type: 'object',
    selfRequired: options.required,
    additionalProperties: { oneOf: [{ type: 'string', maxLength: METADATA_MAX_STRING_LENGTH }, { type: 'number' }] },
    example: { customer: 'c_42', tier: 2 },
    description: options.replaces ? `${DESCRIPTION}; replaces the existing metadata entirely` : DESCRIPTION,
  } as ApiPropertyOptions);
}
