import { Module } from '@nestjs/common';

import { InvocationCoreModule } from '../invocation/invocation-core.module';
import { AnthropicMessagesController } from './messages.controller';
import { AnthropicMessagesService } from './messages.service';
import { AnthropicMessagesTransport } from './messages.transport';

/** Anthropic's Messages API (`/v1/messages`, its count_tokens) over the invocation core (docs/anthropic-compatibility.md). */
@Module({
  imports: [InvocationCoreModule],
  controllers: [AnthropicMessagesController],
  providers: [AnthropicMessagesService, AnthropicMessagesTransport],
})
export class AnthropicModule {}
