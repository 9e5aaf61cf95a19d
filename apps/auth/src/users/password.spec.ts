import { decoyPasswordHash, hashPassword, needsRehash, PASSWORD_HASH_COST, verifyPassword } from './password';

/** A cheaper cost than production's, so that the functional checks stay quick. */
const TEST_COST = 14;

describe('password hashing', () => {
  it('verifies the right password and refuses a wrong one', async () => {
    const stored = await hashPassword('correct horse battery', TEST_COST);
    expect(await verifyPassword('correct horse battery', stored)).toBe(true);
    expect(await verifyPassword('correct horse batterx', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  it('salts every hash and never contains the password', async () => {
    const [a, b] = await Promise.all([
      hashPassword('same password', TEST_COST),
      hashPassword('same password', TEST_COST),
    ]);
    expect(a).not.toBe(b);
    expect(a).not.toContain('same password');
    expect(a).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]{88}$/);
  });

  it('treats canonically equal Unicode forms as the same password', async () => {
    const stored = await hashPassword('caf\u00e9 latte', TEST_COST);
    expect(await verifyPassword('cafe\u0301 latte', stored)).toBe(true);
  });

  it('refuses malformed stored hashes and matches nothing with the decoy', async () => {
    expect(await verifyPassword('anything', 'not-a-hash')).toBe(false);
    expect(await verifyPassword('anything', decoyPasswordHash(TEST_COST))).toBe(false);
  });

  it('hashes at OWASP strength by default: scrypt N=2^17, r=8, p=1', async () => {
    expect(PASSWORD_HASH_COST).toBe(17);
    const stored = await hashPassword('strong enough');
    expect(stored).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]{88}$/);
    expect(await verifyPassword('strong enough', stored)).toBe(true);
    expect(decoyPasswordHash()).toMatch(/^scrypt\$131072\$8\$1\$/);
  });

  it('asks for a rehash of a hash weaker than the current cost, and only of such', async () => {
    const old = await hashPassword('old password', TEST_COST);
    expect(needsRehash(old, 17)).toBe(true);
    expect(needsRehash(old, TEST_COST)).toBe(false);
    expect(needsRehash('scrypt$131072$8$1$c2FsdA==$aGFzaA==', 17)).toBe(false);
    expect(needsRehash('scrypt$131072$4$1$c2FsdA==$aGFzaA==', 17)).toBe(true);
  });
});
