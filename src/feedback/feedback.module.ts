import { Module } from '@nestjs/common';

import { FeedbackController } from './feedback.controller';
import { FeedbackRepository } from './feedback.repository';
import { FeedbackService } from './feedback.service';
import { FeedbackRollups } from './feedback-rollups';
import { FeedbackTargets } from './feedback-targets';

/**
 * Feedback on calls and its rollups per prompt, environment and version (docs/experiments.md,
 * "Feedback"); FeedbackRollups is what per-arm results read.
 */
@Module({
  controllers: [FeedbackController],
  providers: [FeedbackRepository, FeedbackRollups, FeedbackTargets, FeedbackService],
  exports: [FeedbackService, FeedbackRollups],
})
export class FeedbackModule {}
