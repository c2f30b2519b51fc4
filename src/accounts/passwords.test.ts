import { describe, expect, it } from 'vitest';
import { hashPassword, needsRehash, readHash, setPasswordCost, verifyHash, verifyPassword } from './passwords.ts';

const LOW = { N: 2 ** 10, r: 8, p: 1 };

describe('stored password hashes', () => {
  it('a hash is read once and verified from its parts', async () => {
    const stored = await hashPassword('correct horse', LOW);
    const h = readHash(stored);
    expect(h?.cost).toEqual(LOW);
    expect(await verifyHash('correct horse', h)).toBe(true);
    expect(await verifyHash('wrong horse', h)).toBe(false);
    expect(await verifyPassword('correct horse', stored)).toBe(true);
  });

  it('what is not a scrypt hash of ours is never verified (nor a cost above 1 GiB, nor an empty key)', async () => {
    expect(readHash('bcrypt$10$abc')).toBeNull();
    expect(readHash('scrypt$x$8$1$c2FsdA==$a2V5')).toBeNull();
    expect(readHash(`scrypt$${2 ** 21}$8$1$c2FsdA==$a2V5`)).toBeNull();
    expect(await verifyPassword('pw', 'scrypt$1024$8$1$c2FsdA==$')).toBe(false);
    expect(await verifyHash('pw', null)).toBe(false);
  });

  it('a hash made at a lower cost than the current one is made again', async () => {
    setPasswordCost(2 ** 11);
    expect(needsRehash(readHash(await hashPassword('pw', LOW)))).toBe(true);
    expect(needsRehash(readHash(await hashPassword('pw')))).toBe(false);
    expect(needsRehash(null)).toBe(true);
  });
});
