import { Module } from '@nestjs/common';

import { InvocationCoreModule } from '../invocation/invocation-core.module';
import { EmbeddingsController } from './embeddings.controller';
import { EmbeddingsService } from './embeddings.service';
import { EmbeddingsTransport } from './embeddings.transport';

/** OpenAI's `POST /v1/embeddings` (docs/embeddings.md), over the invocation core. */
@Module({
  imports: [InvocationCoreModule],
  controllers: [EmbeddingsController],
  providers: [EmbeddingsService, EmbeddingsTransport],
})
export class EmbeddingsModule {}
