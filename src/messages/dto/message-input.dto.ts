import { ApiProperty } from '@nestjs/swagger';
import { ApiMetadataProperty } from '../../common/swagger/metadata-property';
import { IsDefined, IsOptional } from 'class-validator';
import { ThreadMessageInput, threadMessageInputSchema } from '../../common/chat';
import { openApiSchemaOf } from '../../common/swagger/zod-schema';
import { IsMetadata, MatchesSchema, Metadata } from '../../common/validation';

export class CreateMessageDto {
  @ApiProperty({
    ...openApiSchemaOf(threadMessageInputSchema),
    description: 'a chat message; role defaults to user; content is a string, an array of parts, or null',
    example: { role: 'user', content: 'Hello!' },
  })
  @IsDefined()
  @MatchesSchema(threadMessageInputSchema)
  message: ThreadMessageInput;

  @ApiMetadataProperty({ required: false })
  @IsOptional()
  @IsMetadata()
  metadata?: Metadata;
}

export class UpdateMessageDto {
  @ApiMetadataProperty({ required: true, replaces: true })
  @IsMetadata()
  metadata: Metadata;
}
