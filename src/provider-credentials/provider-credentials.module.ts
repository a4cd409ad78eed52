import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { CryptoModule } from '../common/crypto/crypto.module';
import { RegistryCacheModule } from '../registry-cache/registry-cache';
import { ProviderConnectionTests } from './provider-connection-tests';
import { ProviderCredentialEntity } from './provider-credential.entity';
import { ProviderCredentialsController } from './provider-credentials.controller';
import { ProviderCredentialsRepository } from './provider-credentials.repository';
import { ProviderCredentialsService } from './provider-credentials.service';

@Module({
  imports: [TypeOrmModule.forFeature([ProviderCredentialEntity]), CryptoModule, RegistryCacheModule],
  controllers: [ProviderCredentialsController],
  providers: [ProviderCredentialsRepository, ProviderCredentialsService, ProviderConnectionTests],
  exports: [ProviderCredentialsService],
})
export class ProviderCredentialsModule {}
