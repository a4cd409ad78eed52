import { Module } from '@nestjs/common';

import { AppConfig } from '../../config/app-config';
import { SecretBox } from './secret-box';
import { resolveSecretKey } from './secret-key';

/** Provides the one SecretBox of the process, keyed as resolveSecretKey decides. */
@Module({
  providers: [{ provide: SecretBox, inject: [AppConfig], useFactory: (config: AppConfig) => new SecretBox(resolveSecretKey(config)) }],
  exports: [SecretBox],
})
export class CryptoModule {}
