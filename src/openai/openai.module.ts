import { Module } from '@nestjs/common';

import { InvocationCoreModule } from '../invocation/invocation-core.module';
import { RegistryModule } from '../registry/registry.module';
import { ChatCompletionsController } from './chat-completions.controller';
import { ChatCompletionsService } from './chat-completions.service';
import { ChatCompletionsTransport } from './chat-completions.transport';
import { ModelsController } from './models.controller';
import { ModelsService } from './models.service';

/** The OpenAI-shaped `/v1` chat completions and models (docs/openai-compatibility.md), over the invocation core. */
@Module({
  imports: [InvocationCoreModule, RegistryModule],
  controllers: [ChatCompletionsController, ModelsController],
  providers: [ChatCompletionsService, ChatCompletionsTransport, ModelsService],
})
export class OpenAIModule {}
