export { Change } from './change';
export { ChangeNotifier, ChangeSubscriber } from './change-notifier';
export { ChangesModule } from './changes.module';
