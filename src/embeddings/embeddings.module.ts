import { Module } from '@nestjs/common';

import { InvocationCoreModule } from '../invocation/invocation-core.module';
import { ProjectSettingsModule } from '../project-settings/project-settings.module';
import { EmbeddingsController } from './embeddings.controller';
import { EmbeddingsService } from './embeddings.service';
import { EmbeddingsTransport } from './embeddings.transport';

/** OpenAI's `POST /v1/embeddings` (docs/embeddings.md), over the invocation core. */
@Module({
  imports: [InvocationCoreModule, ProjectSettingsModule],
  controllers: [EmbeddingsController],
  providers: [EmbeddingsService, EmbeddingsTransport],
})
export class EmbeddingsModule {}
