// Signing secrets at rest: AES-256-GCM under a key derived from AUTH_SECRET with HKDF-SHA256.
// The row's identity (merchant and mode) is the additional data, so a ciphertext copied onto
// another row does not open. The clear secret lives only in memory, never in logs or the audit.
import crypto from 'node:crypto';

const FORMAT = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HKDF_SALT = 'gateway webhook secrets';
const HKDF_INFO = 'webhook signing secret encryption v1';

export class SecretBox {
  readonly #key: Buffer;

  /** `purpose`: another use of the same AUTH_SECRET (stored idempotent answers) derives a key of its own. */
  constructor(authSecret: string, purpose: { salt: string; info: string } = { salt: HKDF_SALT, info: HKDF_INFO }) {
    this.#key = Buffer.from(crypto.hkdfSync('sha256', Buffer.from(authSecret, 'utf8'), purpose.salt, purpose.info, 32));
  }

  /** `v1:<base64 of iv | tag | ciphertext>` */
  seal(secret: string, context: string): string {
    const iv = crypto.randomBytes(IV_BYTES);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return `${FORMAT}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  /** Throws when the text was not sealed by this key for this context. */
  open(sealed: string, context: string): string {
    const [format, b64] = sealed.split(':', 2);
    if (format !== FORMAT || !b64) throw new Error('unknown sealed secret format');
    const raw = Buffer.from(b64, 'base64');
    const decipher = crypto.createDecipheriv('aes-256-gcm', this.#key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  }
}

/** The additional data of a webhook's secret: its merchant and mode, as the audit subject spells them. */
export const secretContext = (merchantId: string, livemode: boolean) => `${merchantId}:${livemode ? 'live' : 'test'}`;
