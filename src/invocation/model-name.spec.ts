import { targetOfModel } from './model-name';

describe('targetOfModel', () => {
  it.each([
    ['demo', { type: 'deployment', slug: 'demo', environment: 'production' }],
    ['demo@staging', { type: 'deployment', slug: 'demo', environment: 'staging' }],
    ['demo@staging:12', { type: 'deployment', slug: 'demo', environment: 'staging', version: 12 }],
    ['local/echo', { type: 'provider', provider: 'local', model: 'echo' }],
    ['router/meta-llama/llama-3:free', { type: 'provider', provider: 'router', model: 'meta-llama/llama-3:free' }],
  ])('reads %s', (model, target) => {
    expect(targetOfModel(model)).toEqual(target);
  });

  it.each(['', '/echo', 'local/', 'demo@', 'demo@prod:0', 'demo@prod:x', 'demo:3', 'a@b@c', '@prod'])('names nothing with %j', (model) => {
    expect(targetOfModel(model)).toBeUndefined();
  });
});
