import { Module } from '@nestjs/common';

import { MessagesModule } from '../messages/messages.module';
import { ThreadsModule } from '../threads/threads.module';
import { ConversationItemsController } from './conversation-items.controller';
import { ConversationItemsService } from './conversation-items.service';
import { ConversationsController } from './conversations.controller';
import { ConversationsService } from './conversations.service';

/** /v1/conversations: OpenAI's view of Parley's threads (no tables of its own). */
@Module({
  imports: [ThreadsModule, MessagesModule],
  controllers: [ConversationsController, ConversationItemsController],
  providers: [ConversationsService, ConversationItemsService],
  exports: [ConversationsService, ConversationItemsService],
})
export class ConversationsModule {}
