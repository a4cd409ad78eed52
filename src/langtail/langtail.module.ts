import { Module } from '@nestjs/common';

import { RegistryModule } from '../registry/registry.module';
import { LangtailController } from './langtail.controller';
import { LangtailService } from './langtail.service';

/** The langtail SDK's read calls (`prompts.get`, `prompts.listDeployments`) on the key's project. */
@Module({
  imports: [RegistryModule],
  controllers: [LangtailController],
  providers: [LangtailService],
})
export class LangtailModule {}
