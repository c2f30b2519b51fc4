// Operator routes of the referral program (CONTRACT.md operator API): referral payouts are moved
// by the service's team (`process`, then `paid` with the transaction id, or `reject`) until Tron
// sending exists; referrals are attached and voided by hand; the referral balance is adjusted.
import type { FastifyInstance } from 'fastify';
import { adminRoute } from '../../admin/index.ts';
import { bodyObject } from '../../accounts/index.ts';
import { badRequest, notFound } from '../../platform/errors.ts';
import { queryOf } from '../../platform/http/index.ts';
import { isIdShaped } from '../../platform/fields.ts';
import { NOTE_MAX, requireCapped, requireText, TX_ID_MAX } from '../../platform/text-input.ts';
import { NOTE_REQUIRED, TX_ID_REQUIRED } from '../../settlement/index.ts';
import type { AffiliateService } from '../service.ts';
import type { PayoutMove } from '../payouts/moves.ts';
import { listPayouts } from '../payouts/list.ts';

export const REASON_REQUIRED = 'reason is required';
/** An optional note that is there but no text (a number, blank spaces). */
export const NOTE_NOT_TEXT = 'note must be text';

/** An optional note: absent, null or blank is none; other than text 400 `note must be text`. */
function optionalNote(v: unknown): { note?: string } {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'string') throw badRequest(NOTE_NOT_TEXT);
  return v.trim() === '' ? {} : { note: requireCapped('note', v, NOTE_NOT_TEXT, NOTE_MAX) };
}

/** The move an operator route asks for, from its body. */
const MOVES: Record<'process' | 'paid' | 'reject', (body: Record<string, unknown>) => PayoutMove> = {
  process: () => ({ to: 'processing' }),
  // an optional note says how it was paid when not the usual way (spec 2: `note`, "text when paid outside the usual flow")
  paid: (b) => ({
    to: 'paid', txId: requireCapped('tx_id', b.tx_id, TX_ID_REQUIRED, TX_ID_MAX),
    ...optionalNote(b.note),
  }),
  reject: (b) => ({ to: 'rejected', note: requireCapped('note', b.note, NOTE_REQUIRED, NOTE_MAX) }),
};

const pathId = (params: unknown, name: string): string => {
  const v = (params as Record<string, unknown>)[name];
  if (!isIdShaped(v)) throw notFound();
  return v;
};

export function registerAffiliateAdminRoutes(app: FastifyInstance, affiliate: AffiliateService): void {
  const token = affiliate.platform.config.adminToken;
  const { db } = affiliate.platform;

  adminRoute(app, token, {
    method: 'GET', url: '/admin/affiliate/payouts',
    handler: async (req) => listPayouts(db, null, queryOf(req)),
  });
  for (const verb of ['process', 'paid', 'reject'] as const) {
    adminRoute(app, token, {
      method: 'POST', url: `/admin/affiliate/payouts/:id/${verb}`,
      handler: async (req, _reply, actor) => {
        const id = pathId(req.params, 'id');
        return { payout: await affiliate.movePayout(id, null, MOVES[verb](bodyObject(req.body)), actor) };
      },
    });
  }
  adminRoute(app, token, {
    method: 'POST', url: '/admin/referrals',
    handler: async (req, reply, actor) => reply.code(201).send({ referral: await affiliate.attachReferral(bodyObject(req.body), actor) }),
  });
  adminRoute(app, token, {
    method: 'POST', url: '/admin/referrals/:merchant_id/void',
    handler: async (req, _reply, actor) => {
      const merchantId = pathId(req.params, 'merchant_id');
      const reason = requireText('reason', bodyObject(req.body).reason, REASON_REQUIRED);
      return { referral: await affiliate.voidReferral(merchantId, reason, actor) };
    },
  });
  adminRoute(app, token, {
    method: 'POST', url: '/admin/affiliate/adjustments',
    handler: async (req, reply, actor) => reply.code(201).send({ entry: await affiliate.adjust(bodyObject(req.body), actor) }),
  });
}
