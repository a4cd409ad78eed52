import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { ConversationsModule } from '../conversations/conversations.module';
import { InvocationCoreModule } from '../invocation/invocation-core.module';
import { JobsModule } from '../jobs/jobs.module';
import { MessagesModule } from '../messages/messages.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { BackgroundResponsesService } from './background-responses.service';
import { CompactionService } from './compaction.service';
import { InputTokensService } from './input-tokens.service';
import { ResponseEntity } from './response.entity';
import { ResponseEventRetention } from './response-event-retention';
import { ResponseEventStore } from './response-event-store';
import { ResponseJobWorker } from './response-job-worker';
import { ResponseJobsRepository } from './response-jobs.repository';
import { ResponseResume } from './response-resume';
import { ResponseRunner } from './response-runner';
import { ResponseSignals } from './response-signals';
import { ResponseStatesRepository } from './response-states.repository';
import { ResponsesController } from './responses.controller';
import { ResponsesRepository } from './responses.repository';
import { ResponsesService } from './responses.service';
import { StoredResponsesService } from './stored-responses.service';

/** /v1/responses: OpenAI's Responses API over the invocation core, every provider; background jobs and resumable streams. */
@Module({
  imports: [
    TypeOrmModule.forFeature([ResponseEntity]),
    InvocationCoreModule,
    JobsModule,
    ConversationsModule,
    MessagesModule,
    WebhooksModule,
  ],
  controllers: [ResponsesController],
  providers: [
    ResponsesRepository,
    ResponsesService,
    StoredResponsesService,
    InputTokensService,
    CompactionService,
    ResponseSignals,
    ResponseEventStore,
    ResponseJobsRepository,
    ResponseStatesRepository,
    ResponseRunner,
    ResponseJobWorker,
    ResponseResume,
    ResponseEventRetention,
    BackgroundResponsesService,
  ],
})
export class ResponsesModule {}
