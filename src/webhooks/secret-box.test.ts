import { describe, expect, it } from 'vitest';
import { SecretBox, WebhookSecrets, secretContext } from './secret-box.ts';

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

describe('WebhookSecrets', () => {
  const KEY = 'webhook-key-webhook-key-webhook-key-01';
  const AUTH = 'auth-secret-auth-secret-auth-secret-01';

  it('seals under the webhook key (v2): still open after AUTH_SECRET changes', () => {
    const sealed = new WebhookSecrets(KEY, AUTH).seal(SECRET, 'mer_1:live');
    expect(sealed).toMatch(/^v2:/);
    expect(new WebhookSecrets(KEY, 'rotated-auth-secret-rotated-auth-secret').open(sealed, 'mer_1:live')).toBe(SECRET);
    expect(() => new WebhookSecrets('another-webhook-key-another-webhook-key', AUTH).open(sealed, 'mer_1:live')).toThrow();
  });

  it('opens a secret sealed under AUTH_SECRET before (v1) while AUTH_SECRET is the same, and knows it for legacy', () => {
    const ring = new WebhookSecrets(KEY, AUTH);
    const old = new SecretBox(AUTH).seal(SECRET, 'mer_1:test');
    expect(ring.isLegacy(old)).toBe(true);
    expect(ring.open(old, 'mer_1:test')).toBe(SECRET);
    expect(ring.isLegacy(ring.seal(SECRET, 'mer_1:test'))).toBe(false);
    expect(() => new WebhookSecrets(KEY, 'rotated-auth-secret-rotated-auth-secret').open(old, 'mer_1:test')).toThrow();
  });
});
