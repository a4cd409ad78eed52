import { forView } from '../common/chat';
import { withoutReasoning } from '../providers';
import { RequestLogSummaryDto } from '../request-logs/dto/request-log-summary.dto';
import { visibleContent } from './deleted-items';
import { MessageDto, MessageListItemDto, MessageUpdatedDto } from './dto/message-response.dto';
import { ThreadMessageEntity } from './thread-message.entity';

export const toMessageListItemDto = (m: ThreadMessageEntity): MessageListItemDto => ({
  id: m.id,
  createdAt: m.createdAt.toISOString(),
  threadId: m.threadId,
  // Parley's reasoning fields (providers/reasoning.ts) are no part of the spec's message object.
  content: forView(visibleContent(m.content, m.deletedItems)).map(withoutReasoning),
  requestLogId: m.requestLogId,
  metadata: m.metadata,
});

/** requestLog appears only for messages an invoke added, and only when its log was found. */
export const toMessageDto = (m: ThreadMessageEntity, requestLog?: RequestLogSummaryDto | null): MessageDto => ({
  ...toMessageListItemDto(m),
  ...(requestLog ? { requestLog } : {}),
});

export const toMessageUpdatedDto = (m: ThreadMessageEntity): MessageUpdatedDto => ({
  ...toMessageListItemDto(m),
  deletedAt: m.deletedAt ? m.deletedAt.toISOString() : null,
});
