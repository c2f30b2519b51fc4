// The secret `gateway listen` signs forwarded events with: derived from the API key, so it is the
// same on every start (and every machine) for that key, and the receiver's configuration never
// changes between runs. 64 hex characters, like a webhook secret; the key cannot be recovered from it.
import crypto from 'node:crypto';

const PURPOSE = 'gateway listen signing secret v1';

export function listenSigningSecret(apiKey: string): string {
  return crypto.createHmac('sha256', apiKey).update(PURPOSE).digest('hex');
}
