import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeyEntity } from './api-key.entity';
import { ApiKeyGuard } from './api-key.guard';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';
import { SessionPrincipals } from './session-cookie';

@Global()
@Module({
  imports: [TypeOrmModule.forFeature([ApiKeyEntity])],
  providers: [ApiKeysRepository, ApiKeysService, SessionPrincipals, { provide: APP_GUARD, useClass: ApiKeyGuard }],
  exports: [ApiKeysService, SessionPrincipals],
})
export class AuthModule {}
