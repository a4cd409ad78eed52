import { publicScimBase } from './scim-http';

describe('publicScimBase', () => {
  it('is {PUBLIC_URL}/scim/v2, a path prefix kept and trailing slashes dropped', () => {
    expect(publicScimBase('https://parley.example.com')).toBe('https://parley.example.com/scim/v2');
    expect(publicScimBase('https://example.com/parley/')).toBe('https://example.com/parley/scim/v2');
    expect(publicScimBase('http://localhost:3000//')).toBe('http://localhost:3000/scim/v2');
  });

  it("is null when PUBLIC_URL is unset or no http(s) URL: the request's own origin is used", () => {
    for (const value of [undefined, '', 'parley.example.com', 'ftp://example.com', 'javascript:alert(1)'])
      expect(publicScimBase(value)).toBeNull();
  });
});
