// The `webhooks` section: every event of spec 6.1 as the POST the gateway sends, with its headers
// and the data it carries.
import { WEBHOOK_EVENT_TYPES } from '../webhooks/index.ts';
import { obj, ref, str, type Schema } from './schema.ts';

const WHEN: Record<string, string> = {
  'payment.partially_paid': 'part of the amount arrived; the customer may still send the rest before expires_at',
  'payment.detecting': 'the full amount arrived; awaiting confirmations (not final)',
  'payment.confirmed': 'final: fulfil the order',
  'payment.underpaid': 'closed with only part of the amount',
  'payment.expired': 'the deadline passed with nothing arrived, or no coin chosen',
  'payment.failed': 'funds seen but never final',
  'payment.wrong_asset': 'a deposit in another coin than asked arrived',
  'payment.late_deposit': 'a deposit after the payment closed',
  'settlement.completed': 'direct settlement: the share reached the wallet (data.tx_id set; none for test)',
  'settlement.failed': 'direct settlement could not be sent after repeated tries',
  'payout.approved': 'a requested payout was approved',
  'payout.rejected': 'a payout was rejected; the amount is back in the balance (data.review_note gives the reason)',
  'payout.sent': 'a payout is on chain (data.tx_id set)',
  ping: 'a test was sent',
};

function dataOf(type: string): Schema {
  if (type.startsWith('payment.')) return { ...ref('Payment'), description: 'the payment (never with checkout_token or token_options)' };
  if (type.startsWith('settlement.')) return ref('Settlement');
  if (type.startsWith('payout.')) return ref('Payout');
  return obj({ message: str() }, ['message']);
}

const header = (name: string, description: string, schema: Schema = str()) => ({ name, in: 'header', required: true, description, schema });

export function webhookSection(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const type of [...WEBHOOK_EVENT_TYPES].sort()) {
    out[type] = {
      post: {
        summary: type,
        description: `Sent when ${WHEN[type] ?? type}. Verify X-Webhook-Signature on the raw body before parsing it; deduplicate on the event id.`,
        parameters: [
          header('X-Webhook-Id', 'the delivery id, the same on every attempt and redelivery'),
          header('X-Webhook-Event', 'the event type', str(undefined, { const: type })),
          header('X-Webhook-Attempt', '1 to 7; restarts at 1 after a redelivery'),
          header('X-Webhook-Signature', '`t=<unix seconds>,v1=<hex HMAC-SHA256 of t + "." + raw body, keyed with the mode\'s secret>`'),
        ],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { allOf: [ref('Event'), obj({ type: str(undefined, { const: type }), data: dataOf(type) })] } } },
        },
        responses: {
          '2XX': { description: 'acknowledged (within 10 seconds)' },
          default: { description: 'anything else is a failure, retried after 1 minute, 5 minutes, 30 minutes, 2, 6 and 24 hours' },
        },
      },
    };
  }
  return out;
}
