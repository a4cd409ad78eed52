import { serviceError } from '../common/errors';
import { cacheTtlOf } from './invoke-headers';

describe('cacheTtlOf (x-parley-cache-ttl)', () => {
  const invalid = (message: string) => serviceError(400, 'Bad Request', message);

  it('is undefined without the header, and the seconds with it (0 included)', () => {
    expect(cacheTtlOf({}, invalid)).toBeUndefined();
    expect(cacheTtlOf({ 'x-parley-cache-ttl': '0' }, invalid)).toBe(0);
    expect(cacheTtlOf({ 'x-parley-cache-ttl': ' 600 ' }, invalid)).toBe(600);
    expect(cacheTtlOf({ 'x-parley-cache-ttl': '2592000' }, invalid)).toBe(2592000);
  });

  it.each(['', 'soon', '-1', '1.5', '1e3', '2592001', '999999999'])('refuses %j with the surface’s error', (value) => {
    expect(() => cacheTtlOf({ 'x-parley-cache-ttl': value }, invalid)).toThrow(
      'x-parley-cache-ttl must be a whole number of seconds from 0 to 2592000',
    );
  });

  it('refuses the header sent twice', () => {
    expect(() => cacheTtlOf({ 'x-parley-cache-ttl': ['1', '2'] as unknown as string }, invalid)).toThrow();
  });
});
