// Signing secrets at rest: AES-256-GCM under a key derived with HKDF-SHA256. Webhook secrets are
// sealed (`v2:`) under WEBHOOK_SECRET_KEY (or the key file DATA_DIR/webhook-secret-key), a key of
// their own, so rotating AUTH_SECRET never makes them unreadable; those sealed before (`v1:`, under
// AUTH_SECRET) still open with it and are sealed again under the webhook key at start
// (WebhookEndpoints.resealLegacy). The row's identity (merchant and mode) is the additional data,
// so a ciphertext copied onto another row does not open. The clear secret lives only in memory,
// never in logs or the audit.
import crypto from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const HKDF_SALT = 'gateway webhook secrets';
const HKDF_INFO = 'webhook signing secret encryption v1';

/** Seals and opens secrets for one context each. */
export interface Sealer {
  seal(secret: string, context: string): string;
  open(sealed: string, context: string): string;
}

/** A 32-byte key of its own for one use (`purpose`) of a secret: HKDF-SHA256. */
export function deriveKey(keyMaterial: string, purpose: { salt: string; info: string }): Buffer {
  return Buffer.from(crypto.hkdfSync('sha256', Buffer.from(keyMaterial, 'utf8'), purpose.salt, purpose.info, 32));
}

export class SecretBox implements Sealer {
  readonly #key: Buffer;
  readonly #format: string;

  /**
   * `purpose`: another use of the same secret (stored idempotent answers) derives a key of its own;
   * `format`: the prefix of what it seals (a key of another origin has another prefix).
   */
  constructor(keyMaterial: string, purpose: { salt: string; info: string } = { salt: HKDF_SALT, info: HKDF_INFO }, format = 'v1') {
    this.#key = deriveKey(keyMaterial, purpose);
    this.#format = format;
  }

  get format(): string {
    return this.#format;
  }

  /** `<format>:<base64 of iv | tag | ciphertext>` */
  seal(secret: string, context: string): string {
    const iv = crypto.randomBytes(IV_BYTES);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return `${this.#format}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  /** Throws when the text was not sealed by this key for this context. */
  open(sealed: string, context: string): string {
    const [format, b64] = sealed.split(':', 2);
    if (format !== this.#format || !b64) throw new Error('unknown sealed secret format');
    const raw = Buffer.from(b64, 'base64');
    const decipher = crypto.createDecipheriv('aes-256-gcm', this.#key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  }
}

/** The additional data of a webhook's secret: its merchant and mode, as the audit subject spells them. */
export const secretContext = (merchantId: string, livemode: boolean) => `${merchantId}:${livemode ? 'live' : 'test'}`;

/**
 * Webhook secrets: sealed under the webhook key (`v2`); a `v1` text (sealed under AUTH_SECRET
 * before the webhook key existed) still opens with AUTH_SECRET's key until it is sealed again.
 */
export class WebhookSecrets implements Sealer {
  readonly current: SecretBox;
  readonly legacy: SecretBox;

  constructor(webhookKey: string, authSecret: string) {
    this.current = new SecretBox(webhookKey, { salt: HKDF_SALT, info: 'webhook signing secret encryption v2' }, 'v2');
    this.legacy = new SecretBox(authSecret);
  }

  seal(secret: string, context: string): string {
    return this.current.seal(secret, context);
  }

  open(sealed: string, context: string): string {
    return sealed.startsWith(`${this.legacy.format}:`) ? this.legacy.open(sealed, context) : this.current.open(sealed, context);
  }

  /** Whether a text is sealed under AUTH_SECRET (to be sealed again under the webhook key). */
  isLegacy(sealed: string): boolean {
    return sealed.startsWith(`${this.legacy.format}:`);
  }
}
