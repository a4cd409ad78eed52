import { timeEveryTestAndHook } from '../../harness/timed';

/**
 * The tier's files run under jest-light-runner (../jest.config.js), which shares one module cache
 * per worker but enforces no timeout: as test/harness/test-files.ts does for the main suite, every
 * test and hook gets one here, so a hung request fails its test instead of holding CI. Nothing else
 * of that file applies: this tier touches neither process.env nor a database.
 */
timeEveryTestAndHook();
