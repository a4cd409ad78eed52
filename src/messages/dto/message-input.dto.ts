import { IsDefined } from 'class-validator';

import { ThreadMessageInput, threadMessageInputSchema } from '../../common/chat';
import { ApiMetadataProperty } from '../../common/swagger/metadata-property';
import { InputErrors, IsMetadata, MatchesSchema, Metadata, Optional } from '../../common/validation';

@InputErrors({ message: 'Invalid request parameters' })
export class CreateMessageDto {
  @IsDefined()
  @MatchesSchema(threadMessageInputSchema, {
    description: 'a chat message; role defaults to user; content is a string, an array of parts, or null',
    example: { role: 'user', content: 'Hello!' },
  })
  message: ThreadMessageInput;

  @Optional()
  @ApiMetadataProperty({ required: false })
  @IsMetadata()
  metadata?: Metadata;
}

@InputErrors({ requiredObject: { field: 'metadata', message: 'Metadata is required' } })
export class UpdateMessageDto {
  @ApiMetadataProperty({ required: true, replaces: true })
  @IsMetadata()
  metadata: Metadata;
}
