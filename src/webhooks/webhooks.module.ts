import { Module } from '@nestjs/common';

import { CryptoModule } from '../common/crypto/crypto.module';
import { WebhookDispatcher } from './webhook-dispatcher';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/** Webhooks per project, their outbox and its dispatcher (docs/openai-conversations.md, "Webhooks"). */
@Module({
  imports: [CryptoModule],
  controllers: [WebhooksController],
  providers: [WebhooksRepository, WebhooksService, WebhookDispatcher],
  exports: [WebhooksService],
})
export class WebhooksModule {}
