import { Module } from '@nestjs/common';
import { MessagesModule } from '../messages/messages.module';
import { ProvidersModule } from '../providers';
import { RegistryModule } from '../registry/registry.module';
import { RequestLogsModule } from '../request-logs/request-logs.module';
import { ThreadsModule } from '../threads/threads.module';
import { InvocationController } from './invocation.controller';
import { InvocationRecorder } from './invocation-recorder';
import { InvocationService } from './invocation.service';
import { InvokePreparer } from './invoke-preparer';

@Module({
  imports: [RegistryModule, ThreadsModule, MessagesModule, RequestLogsModule, ProvidersModule],
  controllers: [InvocationController],
  providers: [InvokePreparer, InvocationService, InvocationRecorder],
})
export class InvocationModule {}
