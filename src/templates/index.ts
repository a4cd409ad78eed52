export { compileTemplate, scanTemplateVariables } from './template-engine';
export { TemplateCache, DEFAULT_TEMPLATE_CACHE_SIZE } from './template-cache';
export { TemplateCompileError } from './template-compile-error';
export { TemplateTooLargeError } from './template-size';
export type { TemplateStringLocation } from './template-compile-error';
export type {
  CompiledTemplate,
  RenderLimits,
  TemplateContentPart,
  TemplateImagePart,
  TemplateMessage,
  TemplateTextPart,
  TemplateVariables,
} from './template.types';
