import { Module } from '@nestjs/common';

import { SharedTargetHealth } from './shared-target-health';
import { TargetHealth } from './target-health';

/**
 * Routing's shared state (docs/routing.md, "Health"): the TargetHealth the invocation core asks
 * which targets to try, shared by every replica through PostgreSQL and the change notifications.
 */
@Module({
  providers: [{ provide: TargetHealth, useClass: SharedTargetHealth }],
  exports: [TargetHealth],
})
export class RoutingModule {}
