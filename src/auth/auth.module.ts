import { Global, Module } from '@nestjs/common';
import { APP_GUARD, DiscoveryModule } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';

import { ApiKeyEntity } from './api-key.entity';
import { ApiKeyGuard } from './api-key.guard';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';
import { ScopeCoverage } from './scope-coverage';
import { SessionPrincipals } from './session-cookie';

@Global()
@Module({
  imports: [TypeOrmModule.forFeature([ApiKeyEntity]), DiscoveryModule],
  providers: [ApiKeysRepository, ApiKeysService, SessionPrincipals, ScopeCoverage, { provide: APP_GUARD, useClass: ApiKeyGuard }],
  exports: [ApiKeysService, SessionPrincipals],
})
export class AuthModule {}
