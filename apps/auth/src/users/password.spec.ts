import { DECOY_PASSWORD_HASH, hashPassword, verifyPassword } from './password';

describe('password hashing', () => {
  it('verifies the right password and refuses a wrong one', async () => {
    const stored = await hashPassword('correct horse battery');
    expect(await verifyPassword('correct horse battery', stored)).toBe(true);
    expect(await verifyPassword('correct horse batterx', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  it('salts every hash and never contains the password', async () => {
    const [a, b] = await Promise.all([hashPassword('same password'), hashPassword('same password')]);
    expect(a).not.toBe(b);
    expect(a).not.toContain('same password');
    expect(a).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]{88}$/);
  });

  it('treats canonically equal Unicode forms as the same password', async () => {
    const stored = await hashPassword('caf\u00e9 latte');
    expect(await verifyPassword('cafe\u0301 latte', stored)).toBe(true);
  });

  it('refuses malformed stored hashes and matches nothing with the decoy', async () => {
    expect(await verifyPassword('anything', 'not-a-hash')).toBe(false);
    expect(await verifyPassword('anything', DECOY_PASSWORD_HASH)).toBe(false);
  });
});
