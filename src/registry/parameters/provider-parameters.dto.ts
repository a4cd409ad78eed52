import { ApiProperty } from '@nestjs/swagger';

import { PROVIDER_TYPES, type ProviderType } from '../../providers';
import type { ParameterControl, ParameterDescription } from '../content/parameter-catalogue';

const CONTROLS: ParameterControl[] = ['number', 'integer', 'choice', 'text-list', 'json'];

export class ProviderParameterDto implements ParameterDescription {
  @ApiProperty({ type: String, example: 'temperature', description: "the field of a version's `parameters`" })
  name: ParameterDescription['name'];
  @ApiProperty({ example: 'how varied the answer is: lower is more predictable' }) description: string;
  @ApiProperty({
    enum: CONTROLS,
    description:
      'number or integer (between `minimum` and `maximum` where given), choice (one of `choices`), text-list (a text or up to `maxItems` texts), json (any value the schema takes)',
  })
  control: ParameterControl;
  @ApiProperty({ type: Number, nullable: true, example: 0 }) minimum: number | null;
  @ApiProperty({ type: Number, nullable: true, example: 2 }) maximum: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'text-list: how many texts at most' }) maxItems: number | null;
  @ApiProperty({
    type: 'array',
    items: {},
    nullable: true,
    example: ['auto', 'required', 'none'],
    description: 'choice: the values a provider of this type sends, as a version stores them',
  })
  choices: unknown[] | null;
  @ApiProperty({ description: 'choice: other values are taken too (tool_choice naming a function), written as JSON' }) otherValues: boolean;
  @ApiProperty({
    nullable: true,
    oneOf: [{ type: 'number' }, { type: 'string' }, { type: 'object', additionalProperties: true }],
    example: 1,
    description: 'what the provider uses when the parameter is not set; null when not known',
  })
  default: unknown;
  @ApiProperty({ description: 'false: a version may store it, but a provider of this type is not sent it (Anthropic and temperature)' })
  sent: boolean;
}

export class ProviderTypeParametersDto {
  @ApiProperty({ enum: PROVIDER_TYPES }) type: ProviderType;
  @ApiProperty({
    type: [String],
    nullable: true,
    example: ['echo'],
    description: 'the chat models a provider of this type is known to have; null when its upstream decides',
  })
  models: string[] | null;
  @ApiProperty({ type: [ProviderParameterDto] }) parameters: ProviderParameterDto[];
}

export class ProviderParametersListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [ProviderTypeParametersDto] }) data: ProviderTypeParametersDto[];
}
