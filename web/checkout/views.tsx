// The page's panels, one per phase of the payment, and the parts around them.
import { useEffect, useRef, useState } from 'preact/hooks';
import { CoinLogo } from './logos.tsx';
import { CopyField, Countdown, useT } from './fields.tsx';
import { breakdownOf, shortfallOf, type Payment, type Screen } from './lib/payment.ts';
import { isPositive } from './lib/amounts.ts';
import { tokenNames } from './lib/networks.ts';
import { walletUri, type WalletNetworks } from './lib/wallet-uri.ts';
import { LANGUAGES, LANGUAGE_NAMES, type Language } from './lib/languages.ts';

/** Who is paid: the store (with its merchant), or the merchant. */
export const payeeOf = (p: Payment | null): string | undefined => p?.store_name || p?.merchant_name || undefined;

export function Summary({ p }: { p: Payment }) {
  const { t, f } = useT();
  const payee = payeeOf(p);
  return (
    <section class="card summary" aria-labelledby="payee">
      <h1 id="payee">{payee ? t('payTo', { name: payee }) : t('payment')}</h1>
      {p.store_name && p.merchant_name && p.store_name !== p.merchant_name && <p class="sub" id="merchant">{p.merchant_name}</p>}
      {p.description && <p id="description" class="description">{p.description}</p>}
      {p.order_id && <p class="muted small" id="order">{t('order', { order: p.order_id })}</p>}
      <div class="due">
        <span class="label">{t('amountDue')}</span>
        <strong id="amount-usd">{f.usd(p.amount_due_usd)}</strong>
        {p.price_amount && p.price_currency && <span class="muted small" id="price-in">{t('priceIn', { price: f.money(p.price_amount, p.price_currency) })}</span>}
      </div>
      <Breakdown p={p} />
    </section>
  );
}

function Breakdown({ p }: { p: Payment }) {
  const { t, f } = useT();
  const b = breakdownOf(p);
  const coin = tokenNames(p.token).coin;
  return (
    <details class="breakdown" id="breakdown">
      <summary>{t('details')}</summary>
      <dl>
        <div><dt>{t('price')}</dt><dd id="bd-price">{f.usd(b.price)}</dd></div>
        {b.networkFee && <div><dt>{t('networkFee')}</dt><dd id="bd-network-fee">{f.usd(b.networkFee)}</dd></div>}
        {b.serviceFee && <div><dt>{t('serviceFee')}</dt><dd id="bd-service-fee">{f.usd(b.serviceFee)}</dd></div>}
        {b.extra && <div><dt>{t('extra')}</dt><dd id="bd-extra">{f.usd(b.extra)}</dd></div>}
        <div class="total"><dt>{t('total')}</dt><dd id="bd-total">{f.usd(b.total)}</dd></div>
        {p.rate_locked && p.token && <div><dt>{t('rate')}</dt><dd id="bd-rate">{t('rateValue', { coin, usd: f.usd(p.rate_locked) })}</dd></div>}
      </dl>
      {!p.fees_paid_by_customer && <p class="muted small">{t('feesByMerchant')}</p>}
    </details>
  );
}

export function ChooseCoin({ p, onChoose, busy }: { p: Payment; onChoose: (token: string) => void; busy: string | null }) {
  const { t, f } = useT();
  const options = p.token_options ?? [];
  // No coin takes this amount right now (no current price, or every minimum above it): the options
  // come back with the market, and the page's polls show them then.
  if (options.length === 0) {
    return (
      <div>
        <h2 id="choose-title">{t('chooseTitle')}</h2>
        <p id="no-coins">{t('noCoins', { name: payeeOf(p) ?? t('theShop') })}</p>
      </div>
    );
  }
  return (
    <div aria-labelledby="choose-title" role="group">
      <h2 id="choose-title">{t('chooseTitle')}</h2>
      <p class="muted">{t('chooseHint')}</p>
      <ul class="coins" id="coins">
        {options.map((o) => {
          const n = tokenNames(o.token);
          return (
            <li key={o.token}>
              <button type="button" class="coin" data-token={o.token} disabled={busy !== null} aria-busy={busy === o.token} onClick={() => onChoose(o.token)}>
                <CoinLogo token={o.token} />
                <span class="coin-name">{t('coinOnNetwork', { coin: n.coin, network: n.networkFull })}</span>
                <span class="coin-amount">{f.usd(o.amount_due_usd ?? p.amount_due_usd)}</span>
              </button>
            </li>
          );
        })}
      </ul>
      {busy && <p class="muted" aria-live="polite">{t('preparing')}</p>}
    </div>
  );
}

/** The coin and its network, and the rule that goes with it. */
function NetworkLine({ token }: { token: string }) {
  const { t } = useT();
  const n = tokenNames(token);
  return (
    <div class="network" id="network">
      <CoinLogo token={token} size={40} />
      <div>
        <p class="network-name" id="network-rule"><strong>{t('networkRule', { coin: n.coin, networkFull: n.networkFull, network: n.network })}</strong></p>
        <p class="network-rule">{t('networkLoss')}</p>
      </div>
    </div>
  );
}

/** Address, destination tag (XRP) and, when given, the amount: each to copy. */
function Destination({ p, amount, amountLabel }: { p: Payment; amount?: string; amountLabel: 'amount' | 'stillDue' }) {
  const { t } = useT();
  const coin = tokenNames(p.token).coin;
  const hasTag = p.destination_tag !== undefined && p.destination_tag !== null;
  return (
    <>
      {amount !== undefined && <CopyField id="amount" label={t(amountLabel)} value={amount} unit={coin} big copyLabel="copyAmount" copiedLabel="copiedAmount" />}
      <CopyField id="address" label={t('address')} value={p.deposit_address} mono big copyLabel="copyAddress" copiedLabel="copiedAddress" />
      {hasTag && (
        <div class="tag-box" id="tag-field">
          <CopyField id="tag" label={<>{t('tag')} <span class="required">({t('tagRequired')})</span></>} value={String(p.destination_tag)} mono big copyLabel="copyTag" copiedLabel="copiedTag" />
          <p class="tag-warning" id="tag-warning"><strong>{t('tagWarning')}</strong></p>
        </div>
      )}
    </>
  );
}

interface PayPanelProps {
  p: Payment;
  s: Screen;
  qrUrl: string;
  /** The server's token contracts and EVM chain ids, for the wallet link. */
  networks: WalletNetworks;
  /** The payer just chose the coin: focus moves to the instructions (keyboard and screen reader users). */
  focus: boolean;
}

export function PayPanel({ p, s, qrUrl, networks, focus }: PayPanelProps) {
  const { t, f } = useT();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => { if (focus) heading.current?.focus(); }, [focus]);
  const coin = tokenNames(p.token).coin;
  const hasTag = p.destination_tag !== undefined && p.destination_tag !== null;
  const uri = s.stillDue ? walletUri({ livemode: p.livemode, token: p.token, address: p.deposit_address, amount: s.stillDue, destinationTag: p.destination_tag, ...networks }) : null;
  return (
    <div>
      <h2 id="pay-title" tabindex={-1} ref={heading}>{s.partial ? t('sendRestTitle') : t('sendTitle')}</h2>
      <NetworkLine token={p.token} />
      <Destination p={p} amount={s.stillDue} amountLabel={s.partial ? 'stillDue' : 'amount'} />
      {s.stillDueUsd && <p id="still-due-usd">{t('stillDueUsd', { usd: f.usd(s.stillDueUsd), coin })}</p>}
      {s.partial && p.received_amount && p.received_amount !== '0' && <p class="muted" id="received">{t('receivedSoFar', { amount: `${p.received_amount} ${coin}` })}</p>}
      <div class="qr-block">
        <img id="qr" class="qr" src={qrUrl} width={200} height={200} alt={t('qrAlt')} />
        <p class="muted small">{hasTag ? t('qrCaptionTag') : t('qrCaption')}</p>
        {uri && <a class="button primary" id="wallet-link" href={uri}>{t('openWallet')}</a>}
      </div>
      {p.expires_at && <Countdown until={p.expires_at} />}
      <p class="muted small">{t('rateHolds', { coin })}</p>
    </div>
  );
}

export function DetectingPanel({ p }: { p: Payment }) {
  const { t } = useT();
  const n = p.confirmations ?? 0;
  const m = p.confirmations_required ?? 0;
  const coin = tokenNames(p.token).coin;
  return (
    <div>
      {m > 0 && (
        <div class="progress" id="confirmations">
          <label for="confirmations-bar" class="label">{t('confirmations')}</label>
          <progress id="confirmations-bar" max={m} value={Math.min(n, m)} aria-valuetext={t('confirmationsOf', { n, m })} />
          <p id="confirmations-text">{t('confirmationsOf', { n, m })}</p>
        </div>
      )}
      <p>{t('nothingMore')}</p>
      {isPositive(p.received_amount) && <p class="muted" id="received">{t('received', { amount: `${p.received_amount} ${coin}` })}</p>}
    </div>
  );
}

/** The shop's link: success (confirmed) or cancel (closed unpaid). Never followed by itself. */
function ShopLink({ p, href, kind }: { p: Payment; href?: string; kind: 'success' | 'cancel' }) {
  const { t } = useT();
  if (!href) return kind === 'success' ? <p class="muted">{t('closeHint')}</p> : null;
  const name = p.store_name || p.merchant_name || t('theShop');
  return <a id={kind} class={kind === 'success' ? 'button primary' : 'button'} href={href}>{t(kind === 'success' ? 'returnTo' : 'backTo', { name })}</a>;
}

export function ConfirmedPanel({ p }: { p: Payment }) {
  const { t } = useT();
  const coin = tokenNames(p.token).coin;
  return (
    <div class="done">
      {/* Paid in another coin (accept_other_assets): the notice says so, not "Received: 0 ETH". */}
      {isPositive(p.received_amount) && <p id="received">{t('received', { amount: `${p.received_amount} ${coin}` })}</p>}
      <ShopLink p={p} href={p.success_url} kind="success" />
    </div>
  );
}

export function ClosedPanel({ p, s }: { p: Payment; s: Screen }) {
  const { t, f } = useT();
  const coin = tokenNames(p.token).coin;
  const name = p.store_name || p.merchant_name || t('theShop');
  const time = s.lateUntil ? f.dateTime(s.lateUntil) : '';
  // Part paid in another coin counts in dollars: said in dollars (spec 2 Deposit: usd_value).
  const short = shortfallOf(p, s);
  const amountOf = (a: string) => (short.inUsd ? f.usd(a) : `${a} ${coin}`);
  return (
    <div class="done" id="closed">
      {p.status === 'expired' && (
        <>
          <p id="closed-body">{t('expiredBody')}</p>
          {p.token && time && <p id="late-note">{t('expiredLate', { time })}</p>}
        </>
      )}
      {p.status === 'underpaid' && (
        <>
          <p id="closed-body">{t('underpaidBody', { received: amountOf(short.received), due: amountOf(short.due) })}</p>
          {short.rest && time ? (
            <>
              <p id="late-note">{t('underpaidLate', { rest: amountOf(short.rest), time, name })}</p>
              <NetworkLine token={p.token} />
              {/* Due in dollars: the coin amount is the customer's to work out at the locked rate. */}
              <Destination p={p} amount={short.inUsd ? undefined : short.rest} amountLabel="stillDue" />
              {short.inUsd && <p id="still-due-usd">{t('stillDueUsd', { usd: f.usd(short.rest), coin })}</p>}
            </>
          ) : !time && <p id="late-note">{t('underpaidAsk', { name })}</p>}
        </>
      )}
      {p.status === 'failed' && (
        <>
          <p id="closed-body">{t('failedBody')}</p>
          <p id="late-note">{t('failedMoney', { name })}</p>
        </>
      )}
      <ShopLink p={p} href={p.cancel_url} kind="cancel" />
    </div>
  );
}

/** Deposits that need a word: another coin than asked (payment.wrong_asset), a late one counted. */
export function Notices({ p, s }: { p: Payment; s: Screen }) {
  const { t, f } = useT();
  const asked = tokenNames(p.token);
  const name = p.store_name || p.merchant_name || t('theShop');
  if (s.otherCoin.length === 0 && !s.lateCounted) return null;
  return (
    <div class="notices">
      {s.otherCoin.map((d) => {
        const got = tokenNames(d.token);
        return (
          <p class="notice" key={d.tx_id} data-wrong-asset={d.token}>
            {t('wrongAsset', { amount: `${d.amount} ${t('coinOnNetwork', { coin: got.coin, network: got.networkFull })}`, coin: asked.coin, network: asked.networkFull })}{' '}
            {d.counted ? t('wrongAssetCounted', { usd: f.usd(d.usd_value) }) : t('wrongAssetNotCounted', { name })}
          </p>
        );
      })}
      {s.lateCounted && <p class="notice" id="late-counted">{t('lateCounted')}</p>}
    </div>
  );
}

const OUTCOMES = ['confirmed', 'overpaid', 'partially_paid', 'underpaid', 'expired', 'failed', 'wrong_asset', 'paid_late'];

export function SimulatePanel({ onRun }: { onRun: (outcome: string) => void }) {
  const { t } = useT();
  const [outcome, setOutcome] = useState(OUTCOMES[0]);
  return (
    <section class="card simulate" id="simulate" aria-labelledby="simulate-title">
      <h2 id="simulate-title">{t('simulateTitle')}</h2>
      <label for="outcome">{t('outcome')}</label>
      <div class="row">
        <select id="outcome" value={outcome} onChange={(e) => setOutcome((e.target as HTMLSelectElement).value)}>
          {OUTCOMES.map((o) => <option key={o} value={o}>{o}</option>)}
        </select>
        <button type="button" id="simulate-run" class="button primary" onClick={() => onRun(outcome)}>{t('simulate')}</button>
      </div>
    </section>
  );
}

export function LanguageSwitch({ lang, onChange }: { lang: Language; onChange: (l: Language) => void }) {
  const { t } = useT();
  return (
    <div class="language">
      <label for="language">{t('language')}</label>
      <select id="language" value={lang} onChange={(e) => onChange((e.target as HTMLSelectElement).value as Language)}>
        {LANGUAGES.map((l) => <option key={l} value={l} lang={l}>{LANGUAGE_NAMES[l]}</option>)}
      </select>
    </div>
  );
}
