import { Module } from '@nestjs/common';

import { JobQueue } from './job-queue';

/** The job queue shared by background responses, experiment runs and live graders. */
@Module({ providers: [JobQueue], exports: [JobQueue] })
export class JobsModule {}
