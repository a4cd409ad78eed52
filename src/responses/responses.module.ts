import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ConversationsModule } from '../conversations/conversations.module';
import { InvocationCoreModule } from '../invocation/invocation-core.module';
import { ResponseEntity } from './response.entity';
import { ResponsesController } from './responses.controller';
import { ResponsesRepository } from './responses.repository';
import { ResponsesService } from './responses.service';
import { StoredResponsesService } from './stored-responses.service';

/** /v1/responses: OpenAI's Responses API over the invocation core, every provider. */
@Module({
  imports: [TypeOrmModule.forFeature([ResponseEntity]), InvocationCoreModule, ConversationsModule],
  controllers: [ResponsesController],
  providers: [ResponsesRepository, ResponsesService, StoredResponsesService],
})
export class ResponsesModule {}
