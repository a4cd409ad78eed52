import type { ChatMessage } from '../common/chat';
import type { PreparedInvocation } from '../invocation/invocation.types';
import type { OutputOptions, ResponseBase } from './response-object';
import type { ResponsesBody } from './responses.schema';

/** A response decided and prepared, not yet run (ResponsesService.plan). */
export interface ResponsePlan {
  body: ResponsesBody;
  uuid: string;
  /** What the caller named: `model`, else `prompt.id`. */
  name: string;
  base: ResponseBase;
  /** What `include` adds to the output (reasoning's encrypted content). */
  outputOptions: OutputOptions;
  prepared: PreparedInvocation;
  input: ChatMessage[];
  conversationId: string | null;
}
