export type {
  CompiledTemplate,
  RenderLimits,
  TemplateContentPart,
  TemplateImagePart,
  TemplateMessage,
  TemplateTextPart,
  TemplateVariables,
} from './template.types';
export { DEFAULT_TEMPLATE_CACHE_SIZE, TemplateCache } from './template-cache';
export type { TemplateStringLocation } from './template-compile-error';
export { TemplateCompileError } from './template-compile-error';
export { compileTemplate, scanTemplateVariables } from './template-engine';
export { TemplateTooLargeError } from './template-size';
