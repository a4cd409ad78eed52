import { decodeChange, encodeChange } from './change';

describe('target-health change payloads', () => {
  const change = {
    kind: 'target-health',
    projectId: 'a1b2',
    provider: 'my-openai',
    model: 'gpt-4o "mini"',
    until: 1765820000123,
    trips: 2,
  } as const;

  it('round-trip, a trip and a recovery (trips 0)', () => {
    expect(decodeChange(encodeChange(change))).toEqual(change);
    expect(decodeChange(encodeChange({ ...change, trips: 0 }))).toEqual({ ...change, trips: 0 });
  });

  it.each(['h:', 'h:{', 'h:[1,2,3,4,5]', 'h:["p","a","m",1]', 'h:["p","a","m","soon",1]', 'h:["p","a","m",1,-1]'])(
    'refuses %s',
    (payload) => {
      expect(decodeChange(payload)).toBeNull();
    },
  );
});
