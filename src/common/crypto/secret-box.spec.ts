import { SecretBox, SecretBoxError } from './secret-box';

describe('SecretBox', () => {
  const box = new SecretBox('a'.repeat(32));

  it('round-trips and never contains the plaintext', () => {
    const sealed = box.encrypt('sk-live-secret-value', 'p1/c1');
    expect(sealed).not.toContain('sk-live-secret-value');
    expect(sealed.startsWith('v1.')).toBe(true);
    expect(box.decrypt(sealed, 'p1/c1')).toBe('sk-live-secret-value');
  });

  it('uses a fresh IV each time', () => {
    expect(box.encrypt('x', 'c')).not.toBe(box.encrypt('x', 'c'));
  });

  it('refuses a ciphertext moved to another row, or read with another key', () => {
    const sealed = box.encrypt('secret', 'p1/c1');
    expect(() => box.decrypt(sealed, 'p2/c1')).toThrow(SecretBoxError);
    expect(() => new SecretBox('b'.repeat(32)).decrypt(sealed, 'p1/c1')).toThrow(/not the key it was stored with/);
  });

  it('refuses to store without a key, with a message saying what to do', () => {
    const none = new SecretBox(null);
    expect(none.available).toBe(false);
    expect(() => none.encrypt('x', 'c')).toThrow(/PARLEY_SECRET_KEY is not set/);
  });
});
