import { Injectable } from '@nestjs/common';

import { ThreadMessagesSource } from '../request-logs/thread-messages.source';
import type { ThreadRange } from '../request-logs/thread-range';
import { MessagesRepository } from './messages.repository';

/** The request-logs module's view of thread messages (see ThreadMessagesSource). */
@Injectable()
export class ThreadMessagesSourceImpl extends ThreadMessagesSource {
  constructor(private readonly messages: MessagesRepository) {
    super();
  }

  async messagesInRange(projectId: string, range: ThreadRange): Promise<unknown[]> {
    const skip = new Set(range.skip);
    const turns = await this.messages.turnsInRange(projectId, range.threadId, range.fromSeq, range.toSeq);
    return turns.filter((turn) => !skip.has(Number(turn.seq))).flatMap((turn) => turn.content);
  }

  messageIdsOfLog(projectId: string, threadId: string, requestLogId: string): Promise<string[]> {
    return this.messages.idsOfLog(projectId, threadId, requestLogId);
  }
}
