import { Module } from '@nestjs/common';

import { ResponseCache } from './response-cache.service';

/** The exact response cache's storage (docs/routing.md, "Response cache"); the invocation core decides when it applies. */
@Module({
  providers: [ResponseCache],
  exports: [ResponseCache],
})
export class ResponseCacheModule {}
