export { RegistryModule } from './registry.module';
export { RegistryService } from './registry.service';
export type {
  ModelParameters,
  PromptKind,
  ProviderKind,
  ResolvedDeployment,
  ResolvedProvider,
  StoredToolChoice,
} from './resolved-deployment';
