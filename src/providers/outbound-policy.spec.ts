import { addressCategory, OutboundPolicy, parseAllowedHosts } from './outbound-policy';

describe('addressCategory', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fc00::1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['100.64.0.1', 'CGNAT'],
    ['100.127.255.254', 'CGNAT'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['not-an-ip', 'reserved'],
  ])('%s is %s', (ip, category) => {
    expect(addressCategory(ip)).toBe(category);
  });

  it.each(['8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '64:ff9b::808:808', '::ffff:8.8.8.8'])('%s is public', (ip) => {
    expect(addressCategory(ip)).toBeUndefined();
  });
});

describe('parseAllowedHosts', () => {
  it('reads host names, addresses, ranges and ports', () => {
    expect(parseAllowedHosts(' Ollama , 10.0.0.5:11434,[fd00::5]:8000, fd00::6 ,10.1.0.0/16,localhost.,')).toEqual([
      { host: 'ollama' },
      { host: '10.0.0.5', port: 11434 },
      { host: 'fd00::5', port: 8000 },
      { host: 'fd00::6' },
      { host: '10.1.0.0/16' },
      { host: 'localhost' },
    ]);
    expect(parseAllowedHosts(undefined)).toEqual([]);
    expect(parseAllowedHosts('')).toEqual([]);
  });

  it.each(['http://ollama', 'a b', '*.internal', 'host:0', 'host:70000', '10.0.0.0/33', '10.0.0.0/8:80', 'ollama/8', '[fd00::5'])(
    'refuses %p',
    (entry) => {
      expect(() => parseAllowedHosts(entry)).toThrow(
        `"${entry}" is not a host name, IP address or IP range (CIDR), with an optional :port`,
      );
    },
  );
});

describe('OutboundPolicy.refusal', () => {
  it('refuses non-public addresses unless the name, the address or its range is allowed (with its port, when given)', () => {
    const refused: string[] = [];
    const policy = new OutboundPolicy(parseAllowedHosts('ollama,10.0.0.5:11434,192.168.0.0/24'), (err) => refused.push(err.message));
    expect(policy.refusal('api.example.com', 443, '93.184.215.14')).toBeUndefined();
    expect(policy.refusal('ollama', 11434, '172.17.0.2')).toBeUndefined();
    expect(policy.refusal('ollama.', 80, '127.0.0.1')).toBeUndefined();
    expect(policy.refusal('llm.lan', 11434, '10.0.0.5')).toBeUndefined();
    expect(policy.refusal('10.0.0.5', 80, '10.0.0.5')?.category).toBe('private');
    expect(policy.refusal('gpu', 8000, '192.168.0.77')).toBeUndefined();
    expect(policy.refusal('gpu', 8000, '192.168.1.77')?.category).toBe('private');
    expect(policy.refusal('evil.example', 80, '169.254.169.254')?.category).toBe('metadata');
    expect(refused).toEqual([
      '10.0.0.5:80 is a private address, refused by the outbound policy',
      'gpu:8000 is a private address, refused by the outbound policy',
      'evil.example:80 is a metadata address, refused by the outbound policy',
    ]);
  });
});
