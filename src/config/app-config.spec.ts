import { ConfigError, loadAppConfig } from './app-config';

describe('loadAppConfig: HISTORY_CACHE_MB', () => {
  it('keeps 8 MB of thread histories by default, and none with 0', () => {
    expect(loadAppConfig({}).historyCacheBytes).toBe(8 * 1024 * 1024);
    expect(loadAppConfig({ HISTORY_CACHE_MB: '64' }).historyCacheBytes).toBe(64 * 1024 * 1024);
    expect(loadAppConfig({ HISTORY_CACHE_MB: '0' }).historyCacheBytes).toBe(0);
  });

  it.each(['-1', '1.5', 'lots', '65537'])('refuses %s at boot, naming the variable', (value) => {
    expect(() => loadAppConfig({ HISTORY_CACHE_MB: value })).toThrow(ConfigError);
    expect(() => loadAppConfig({ HISTORY_CACHE_MB: value })).toThrow(/HISTORY_CACHE_MB/);
  });
});

describe('loadAppConfig: PARLEY_GUARD_INTERVAL_MS', () => {
  it('checks the guards every 5 s by default, or as set', () => {
    expect(loadAppConfig({}).guardIntervalMs).toBe(5000);
    expect(loadAppConfig({ PARLEY_GUARD_INTERVAL_MS: '250' }).guardIntervalMs).toBe(250);
  });

  it.each(['0', '99', '2.5', 'often', '3600001'])('refuses %s at boot, naming the variable', (value) => {
    expect(() => loadAppConfig({ PARLEY_GUARD_INTERVAL_MS: value })).toThrow(/PARLEY_GUARD_INTERVAL_MS/);
  });
});

describe('loadAppConfig: PARLEY_ROUTING_COOLDOWN_MS', () => {
  it('cools a target down for 5 s first by default, or as set', () => {
    expect(loadAppConfig({}).routingCooldownMs).toBe(5000);
    expect(loadAppConfig({ PARLEY_ROUTING_COOLDOWN_MS: '1000' }).routingCooldownMs).toBe(1000);
  });

  it.each(['0', '99', '2.5', 'soon', '600001'])('refuses %s at boot, naming the variable', (value) => {
    expect(() => loadAppConfig({ PARLEY_ROUTING_COOLDOWN_MS: value })).toThrow(/PARLEY_ROUTING_COOLDOWN_MS/);
  });
});
