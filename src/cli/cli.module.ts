import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { ConfigModule } from '../config/config.module';
import { DatabaseModule } from '../database/database.module';
import { SetupModule } from '../setup/setup.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';

/** What CLI commands need: the same services as the server, without HTTP. */
@Module({
  imports: [ConfigModule, DatabaseModule, AuthModule, WorkspacesModule, SetupModule],
})
export class CliModule {}
