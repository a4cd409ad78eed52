import { ApiProperty } from '@nestjs/swagger';
import { z } from 'zod';

import { openApiSchemaOf } from '../../common/swagger/zod-schema';
import {
  compactionItemSchema,
  createConversationSchema,
  functionCallItemSchema,
  functionCallOutputItemSchema,
  messageItemSchema,
  updateConversationSchema,
} from '../conversation-inputs';

/** Swagger shapes of /v1/conversations, from the same zod schemas that validate the bodies. */
/** Any other type is stored and returned unchanged (docs/openai-conversations.md, "Items Parley does not interpret"). */
const otherItemSchema = z
  .looseObject({ type: z.string().regex(/^[a-z][a-z0-9_.]{0,63}$/) })
  .describe('an item of a type Parley does not interpret: stored and returned unchanged, never sent to a provider');
const inputItemSchema = z.union([
  messageItemSchema,
  functionCallItemSchema,
  functionCallOutputItemSchema,
  compactionItemSchema,
  otherItemSchema,
]);
export const CREATE_CONVERSATION_BODY = openApiSchemaOf(
  createConversationSchema.extend({ items: z.array(inputItemSchema).max(20).nullable().optional() }),
);
export const UPDATE_CONVERSATION_BODY = openApiSchemaOf(updateConversationSchema);
export const CREATE_ITEMS_BODY = openApiSchemaOf(z.strictObject({ items: z.array(inputItemSchema).max(20) }));

const PART = {
  type: 'object',
  properties: {
    type: { type: 'string', enum: ['input_text', 'output_text', 'input_image', 'input_file'] },
    text: { type: 'string' },
    annotations: { type: 'array', items: {} },
    image_url: { type: 'string' },
    detail: { type: 'string' },
    filename: { type: 'string' },
    file_data: { type: 'string' },
    file_url: { type: 'string' },
  },
  required: ['type'],
};
export const ITEM_SCHEMA = {
  type: 'object',
  description:
    "A `message`, `function_call`, `function_call_output` or `compaction` item, or an item of another type as it was given (with Parley's `itm_` id). Item ids: see docs/openai-conversations.md.",
  properties: {
    id: { type: 'string', example: 'msg_0192f0c1a2b37c4d8e9f00112233aabb_0_0' },
    type: { type: 'string', example: 'message' },
    status: { type: 'string', enum: ['completed'] },
    role: { type: 'string', enum: ['user', 'assistant', 'system', 'developer'] },
    content: { type: 'array', items: PART },
    call_id: { type: 'string' },
    name: { type: 'string' },
    arguments: { type: 'string' },
    output: { oneOf: [{ type: 'string' }, { type: 'array', items: PART }] },
    encrypted_content: {
      type: 'string',
      description: '`compaction`: `parley.compaction.v1.` and the base64 of the summary the model gets',
    },
    compacted_by: {
      type: 'string',
      description: "Parley's: the id of the compaction item that stands for this item in the model's history",
    },
  },
  required: ['id', 'type'],
};

export class ConversationDto {
  @ApiProperty({ format: 'uuid', description: 'the id of the thread it is (same on /v2)' }) id: string;
  @ApiProperty({ enum: ['conversation'] }) object: 'conversation';
  @ApiProperty({ description: 'Unix seconds' }) created_at: number;
  @ApiProperty({ type: 'object', additionalProperties: { oneOf: [{ type: 'string' }, { type: 'number' }] } }) metadata: Record<
    string,
    string | number
  >;
}

export class ConversationDeletedDto {
  @ApiProperty() id: string;
  @ApiProperty({ enum: ['conversation.deleted'] }) object: 'conversation.deleted';
  @ApiProperty({ enum: [true] }) deleted: true;
}

export class ConversationListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: [ConversationDto] }) data: ConversationDto[];
  @ApiProperty({ type: String, nullable: true }) first_id: string | null;
  @ApiProperty({ type: String, nullable: true }) last_id: string | null;
  @ApiProperty() has_more: boolean;
}

export class ConversationItemListDto {
  @ApiProperty({ enum: ['list'] }) object: 'list';
  @ApiProperty({ type: 'array', items: ITEM_SCHEMA }) data: unknown[];
  @ApiProperty({ type: String, nullable: true }) first_id: string | null;
  @ApiProperty({ type: String, nullable: true }) last_id: string | null;
  @ApiProperty() has_more: boolean;
}
