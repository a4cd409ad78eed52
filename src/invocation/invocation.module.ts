import { Module } from '@nestjs/common';

import { InvocationController } from './invocation.controller';
import { InvocationCoreModule } from './invocation-core.module';
import { SpecInvokeParser } from './spec-invoke.parser';
import { SpecInvokeTransport } from './spec-invoke.transport';

/** The spec's invoke endpoints (1 and 2): a transport over the invocation core. Imported last in AppModule. */
@Module({
  imports: [InvocationCoreModule],
  controllers: [InvocationController],
  providers: [SpecInvokeParser, SpecInvokeTransport],
})
export class InvocationModule {}
