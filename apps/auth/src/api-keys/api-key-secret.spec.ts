import { apiKeyHash } from '@gw/contracts';
import { createHash } from 'node:crypto';
import { API_KEY_PREFIX, apiKeyShort, generateApiKey } from './api-key-secret';

describe('generateApiKey', () => {
  it('makes a prefixed key of 43 base62 characters (256 bits)', () => {
    const { key } = generateApiKey();
    expect(key.startsWith(API_KEY_PREFIX)).toBe(true);
    expect(key.slice(API_KEY_PREFIX.length)).toMatch(/^[0-9A-Za-z]{43}$/);
  });

  it('returns the SHA-256 hex of the key and its last 6 characters', () => {
    const { key, keyHash, short } = generateApiKey();
    expect(keyHash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(short).toBe(key.slice(-6));
    expect(short).toHaveLength(6);
  });

  it('never repeats a key', () => {
    const keys = new Set(Array.from({ length: 1000 }, () => generateApiKey().key));
    expect(keys.size).toBe(1000);
  });

  it('uses the whole alphabet', () => {
    const seen = new Set(
      Array.from({ length: 200 }, () => generateApiKey().key.slice(API_KEY_PREFIX.length)).join(''),
    );
    expect(seen.size).toBe(62);
  });
});

describe('apiKeyHash and apiKeyShort', () => {
  it('hash a known key to its known digest', () => {
    expect(apiKeyHash('sk-gw-test')).toBe(createHash('sha256').update('sk-gw-test').digest('hex'));
    expect(apiKeyHash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('take the last six characters', () => {
    expect(apiKeyShort('sk-gw-abcdefghij')).toBe('efghij');
  });
});
