// The composition of the rooms' services. Each room adds its service here; routes and workers
// receive this object and never construct services themselves.
import type { Platform } from './platform/context.ts';
import { AccountsService } from './accounts/index.ts';
import { AffiliateService } from './affiliate/index.ts';
import { EMPTY_TRAIL_SECTIONS, PaymentsService, settleInputOf } from './payments/index.ts';
import { createMarket, type Market } from './market/index.ts';
import { Realtime, foundOrNull } from './realtime/index.ts';
import { SettlementService, marketQuotes } from './settlement/index.ts';
import { WebhooksService, countFailedDeliveries, deliveriesForPayment } from './webhooks/index.ts';
import { chainNodes, type ChainNodes } from './chains/rpc/nodes.ts';
import { ChainSending } from './chains/sending/index.ts';
import { createChainWatching } from './chains/watching/index.ts';
import { unmatchedOfPayment, type ChainWatching } from './chains/watch/index.ts';
import { SupportService } from './support/index.ts';
import { LinksService, linkFeed } from './links/index.ts';
import { CustomersService, customerFeed } from './customers/index.ts';
import { MailService } from './mail/index.ts';

export interface Services {
  platform: Platform;
  accounts: AccountsService;
  affiliate: AffiliateService;
  market: Market;
  payments: PaymentsService;
  realtime: Realtime;
  settlement: SettlementService;
  webhooks: WebhooksService;
  /** One NodeEndpoints per chain with a node configured, shared by everything that talks to it. */
  nodes: ChainNodes;
  /** Transfers on chain, the hot wallets and network fee quotes. */
  sending: ChainSending;
  /** The chain watchers: live deposits seen on chain, fed to the payments' DepositIntake. */
  watching: ChainWatching;
  support: SupportService;
  links: LinksService;
  customers: CustomersService;
  /** E-mail of notifications over SMTP_URL (inert without it). */
  mail: MailService;
}

export async function createServices(platform: Platform): Promise<Services> {
  const { db, config } = platform;
  const accounts = new AccountsService(platform);
  const nodes = chainNodes(config);
  const sending = await ChainSending.create(platform, nodes);
  // Live network fees are quoted from the chains' nodes (chains without one keep the built-in figures).
  const market = createMarket({ config, clock: platform.clock, log: platform.log, networkFees: sending.feeQuoter });
  // no payout address, nor referral payout, may point at the service's own addresses or a token contract
  const ownAddresses = sending.ownAddresses.refusal.bind(sending.ownAddresses);
  const settlement = new SettlementService(platform, { market, ownAddresses });
  const webhooks = new WebhooksService(platform);
  // The referral program joins each signup (code, referral) and each live service fee (commission).
  const affiliate = new AffiliateService(platform, { market, ownAddresses });
  accounts.useSignupHook(affiliate.enroll);
  settlement.useServiceFees(affiliate.creditCommission);
  // a deleted payout address cancels the referral payouts still requested to it
  settlement.addresses.useRetiredPort(affiliate.addressRetired);
  const payments = new PaymentsService(platform, {
    market,
    payoutAddresses: (merchantId, livemode, ex) => settlement.payoutAddressInputs(merchantId, livemode, ex),
    failedWebhooks: (merchantId, livemode) => countFailedDeliveries(db.orm, merchantId, livemode),
    trailSections: {
      ...EMPTY_TRAIL_SECTIONS,
      settlements: (id) => settlement.trailSettlements(id),
      ledger: (id) => settlement.trailLedger(id),
      webhookDeliveries: (id) => deliveriesForPayment(db.orm, id),
      unmatchedDeposits: (id) => unmatchedOfPayment(db.orm, id),
    },
    payerNames: (merchantId, storeId) => accounts.names.names(merchantId, storeId),
  });
  // The payer names are kept until they change, from the payments' change feed.
  accounts.names.follow(payments.changes);
  // and a key revoked, or a merchant suspended or switched out of live mode, by another process is
  // dropped from this one's key cache at once.
  accounts.authn.followAccessChanges(payments.changes);
  // Closed payments settle from the outbox, in the dispatch transaction; their transfers are sent after it commits.
  platform.outbox.subscribe(settlement.subscriber(settleInputOf));
  settlement.useTransfers(sending.transfers.port);
  // a Tron settlement's burnt TRX is priced in its coin at the current rates (settlement/burnt-fee.ts)
  sending.transfers.useRates((livemode) => marketQuotes(market.snapshot(livemode)).rates);
  // a settlement whose fee waits for the real network fee tells the referral program at completion
  sending.transfers.useServiceFees(affiliate.creditCommission);
  platform.outbox.subscribe(sending.transfers.subscriber());
  const watching = createChainWatching(platform, nodes, sending.kits, { intake: payments.intake, market }, {}, sending.readers, sending.hotWallets);
  const realtime = new Realtime(platform, accounts.authn, {
    checkout: { payerViewByToken: (t) => foundOrNull(payments.checkoutView(t)) },
    figures: (merchantId, livemode) => payments.dashboard(merchantId, livemode),
    names: (merchantId, storeId) => accounts.names.peek(merchantId, storeId),
    evmChainIds: () => sending.evmChainIds.current(),
  });
  const support = new SupportService(platform);
  const links = new LinksService(platform, payments);
  const customers = new CustomersService(platform, (merchantId, ids) => payments.viewsByIds(merchantId, ids));
  // Links and customers count their payments from the outbox (payment.created, payment.confirmed).
  payments.groups.addFeed(linkFeed(() => links.checkoutBase));
  payments.groups.addFeed(customerFeed);
  platform.outbox.subscribe(payments.groups.subscriber);
  // notifications are mailed from the outbox (their `notification` event), as webhooks are queued
  const mail = new MailService(platform);
  // with SMTP_URL, an invitation's mail is queued in the invitation's transaction
  if (mail.invitations) accounts.useInvitationHook(mail.invitations);
  return { platform, accounts, affiliate, market, payments, realtime, settlement, webhooks, support, links, customers, nodes, sending, watching, mail };
}
