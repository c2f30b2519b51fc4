// Door of the referral program (CONTRACT.md "Referral program", spec 2-4, 6.3, 7, 8): codes and
// links, clicks, referrals, commissions and the referral balance (USDT_TRC20, apart from the
// merchant's own balances and ledger), referral payouts and the operator's routes.
export { AffiliateService } from './service.ts';
export { registerAffiliateRoutes } from './routes/index.ts';
export { AFFILIATE_EVENTS } from './balance.ts';
export { PAYOUT_REQUESTED_TITLE } from './payouts/events.ts';
export { affiliates, referrals, commissions, affiliatePayouts, affiliateEntries } from './schema.ts';
export { checkReferralBalances, type ReferralBalanceMismatch } from './check.ts';

// Messages the OpenAPI document (src/openapi/routes) lists, imported there rather than typed again.
export { ADDRESS_OR_ID, COULD_NOT_LIST, COULD_NOT_REQUEST, PAYOUT_OPEN, TOO_MANY_DECIMALS, UNKNOWN_PAYOUT_ADDRESS } from './payouts/errors.ts';
