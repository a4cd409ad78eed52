/**
 * The shapes the template engine works on. They are structural on purpose: any chat message type
 * with these fields (such as the validated `ChatMessage` of `src/common/chat`) can be passed in,
 * and its other fields (`tool_calls`, `tool_call_id`, …) come back out unchanged.
 */

export interface TemplateTextPart {
  type: 'text';
  text: string;
}

export interface TemplateImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: string };
}

export type TemplateContentPart = TemplateTextPart | TemplateImagePart;

/** One message of a template. Only string `content`, text parts' `text` and image URLs are templated. */
export interface TemplateMessage {
  role: string;
  content: string | readonly TemplateContentPart[] | null;
  name?: string;
}

/** Values for a template's variables. Values are data: they are never compiled as templates. */
/** Bounds of one render (docs/templates.md, "Size of a rendered template"). */
export interface RenderLimits {
  /** The most characters a render may produce: static text plus every variable value it inserts. */
  maxChars: number;
}

export type TemplateVariables = Readonly<Record<string, string>>;

export interface CompiledTemplate<M extends TemplateMessage = TemplateMessage> {
  /** The variables the template reads, sorted (same as `scanTemplateVariables`). */
  readonly variables: readonly string[];
  /**
   * Fresh copies of the messages with every templated string rendered; missing variables are empty.
   * With `limits`, throws TemplateTooLargeError as soon as the render passes `maxChars`.
   */
  render(variables: TemplateVariables, limits?: RenderLimits): M[];
}
