import { Global, Module } from '@nestjs/common';

import { ChangeNotifier } from './change-notifier';

/** Global: every cache that must hear of other instances' writes subscribes to the one notifier. */
@Global()
@Module({ providers: [ChangeNotifier], exports: [ChangeNotifier] })
export class ChangesModule {}
