import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';

import { CryptoModule } from '../common/crypto/crypto.module';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyRepository } from './idempotency.repository';
import { IdempotencyService } from './idempotency.service';
import { IdempotencyCoverage } from './idempotency-coverage';

/** Global: `@Idempotent()` routes of every feature module instantiate the interceptor in their own module. */
@Global()
@Module({
  imports: [DiscoveryModule, CryptoModule],
  providers: [IdempotencyRepository, IdempotencyService, IdempotencyInterceptor, IdempotencyCoverage],
  exports: [IdempotencyService, IdempotencyInterceptor],
})
export class IdempotencyModule {}
