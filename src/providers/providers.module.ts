import { DynamicModule, FactoryProvider, Module, ModuleMetadata } from '@nestjs/common';

import type { ProviderDefaults } from './providers.service';
import { PROVIDER_DEFAULTS, ProvidersService } from './providers.service';

/**
 * Import `ProvidersModule` for the built-in defaults, or `ProvidersModule.register({...})` /
 * `registerAsync({ imports, inject, useFactory })` to set them from the application's config.
 */
@Module({
  providers: [ProvidersService],
  exports: [ProvidersService],
})
export class ProvidersModule {
  static register(defaults: Partial<ProviderDefaults>): DynamicModule {
    return { module: ProvidersModule, providers: [{ provide: PROVIDER_DEFAULTS, useValue: defaults }] };
  }

  static registerAsync(options: {
    imports?: ModuleMetadata['imports'];
    inject?: FactoryProvider['inject'];
    useFactory: (...args: never[]) => Partial<ProviderDefaults> | Promise<Partial<ProviderDefaults>>;
  }): DynamicModule {
    return {
      module: ProvidersModule,
      imports: options.imports ?? [],
      providers: [{ provide: PROVIDER_DEFAULTS, inject: options.inject ?? [], useFactory: options.useFactory }],
    };
  }
}
