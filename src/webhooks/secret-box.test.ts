import { describe, expect, it } from 'vitest';
import { SecretBox, secretContext } from './secret-box.ts';

const SECRET = 'a'.repeat(64);

describe('SecretBox', () => {
  const box = new SecretBox('auth-secret-auth-secret-auth-secret-01');

  it('opens what it sealed, and the sealed text never holds the secret', () => {
    const sealed = box.seal(SECRET, secretContext('mer_1', true));
    expect(sealed).toMatch(/^v1:/);
    expect(sealed).not.toContain(SECRET);
    expect(box.open(sealed, 'mer_1:live')).toBe(SECRET);
  });

  it('seals the same secret differently each time (fresh iv)', () => {
    expect(box.seal(SECRET, 'm:test')).not.toBe(box.seal(SECRET, 'm:test'));
  });

  it('refuses another row, another key and a tampered text', () => {
    const sealed = box.seal(SECRET, 'mer_1:test');
    expect(() => box.open(sealed, 'mer_2:test')).toThrow();
    expect(() => new SecretBox('another-auth-secret-another-auth-secret').open(sealed, 'mer_1:test')).toThrow();
    const raw = Buffer.from(sealed.slice(3), 'base64');
    raw[raw.length - 1] ^= 1;
    expect(() => box.open(`v1:${raw.toString('base64')}`, 'mer_1:test')).toThrow();
    expect(() => box.open('v0:abc', 'mer_1:test')).toThrow('unknown sealed secret format');
  });
});
