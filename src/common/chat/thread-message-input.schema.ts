import { z } from 'zod';

import { chatMessageShape, chatRoleSchema } from './chat-message.schema';

/**
 * The `message` of Create Thread Message. The spec lists content, name, tool_calls, tool_choice
 * and tool_call_id; DESIGN §3 adds `role` (default `user`) and lets content be a string, an array
 * of parts or null. `function_call` is not listed there, so it is an unrecognized key.
 * `content` is required (null allowed) like in the message object: the stored message is later
 * sent to providers as a message object, which must carry the key.
 */
export const threadMessageInputSchema = z.strictObject({
  role: chatRoleSchema.default('user'),
  content: chatMessageShape.content,
  name: chatMessageShape.name,
  tool_calls: chatMessageShape.tool_calls,
  tool_choice: chatMessageShape.tool_choice,
  tool_call_id: chatMessageShape.tool_call_id,
});

/** Validated thread message input; assignable to `ChatMessage`, which is what gets stored. */
export type ThreadMessageInput = z.output<typeof threadMessageInputSchema>;
