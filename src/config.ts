// The environment of CONTRACT.md, parsed and validated once at start. Anything wrong stops the
// process with one line naming the variable (ConfigError), before any port or file is opened.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import net from 'node:net';
import { generateMnemonic, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';

export const CHAINS = ['bitcoin', 'litecoin', 'dogecoin', 'ethereum', 'bsc', 'tron', 'xrp'] as const;
export type Chain = (typeof CHAINS)[number];

/** Confirmations a deposit needs before it is final, per chain, unless CONFIRMATIONS_<CHAIN> says otherwise. */
export const DEFAULT_CONFIRMATIONS: Record<Chain, number> = {
  bitcoin: 3, litecoin: 6, dogecoin: 20, ethereum: 12, bsc: 15, tron: 20, xrp: 1,
};

export const DEFAULT_WEBHOOK_RETRY_DELAYS = [60, 300, 1800, 7200, 21600, 86400];

/** The public price APIs the live market can ask (CONTRACT.md "Live market data"), in default order. */
export const RATE_SOURCE_NAMES = ['coinbase', 'kraken', 'binance', 'bitstamp', 'okx'] as const;
export type RateSourceName = (typeof RATE_SOURCE_NAMES)[number];

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  /** Base of the hosted checkout page; null when CHECKOUT_URL is set to empty (no page). */
  checkoutUrl: string | null;
  databaseUrl: string | null;
  dataDir: string;
  authSecret: string;
  /** scrypt's N for new password hashes (PASSWORD_SCRYPT_N; OWASP's 2^17 unless lowered, for tests). */
  passwordScryptN: number;
  /** Key of the webhook signing secrets at rest (WEBHOOK_SECRET_KEY, or DATA_DIR/webhook-secret-key). */
  webhookSecretKey: string;
  walletMnemonic: string;
  /** True when the mnemonic was generated into DATA_DIR (development only). */
  walletMnemonicGenerated: boolean;
  adminToken: string | null;
  /** TRUST_PROXY: false (unset), 1 (one proxy in front) or the exact proxy addresses and CIDR ranges. */
  trustProxy: TrustProxy;
  webhookAllowPrivate: boolean;
  webhookRetryDelaysS: number[];
  webhookTimeoutMs: number;
  simulationStepMs: number;
  marketFile: string | null;
  /** RATE_SOURCES: the price APIs of the live market, in the order given. */
  rateSources: RateSourceName[];
  /** RATE_SOURCE_<NAME>_URL: a source's base URL instead of its public one (no trailing slash). */
  rateSourceUrls: Partial<Record<RateSourceName, string>>;
  rateRefreshS: number;
  rateMaxAgeS: number;
  /** Node URLs per chain, in order of preference (CONTRACT.md: several separated by commas); empty: not watched. */
  rpc: Record<Chain, string[]>;
  /** TRON_SOLIDITY_URL: where java-tron serves /walletsolidity/* when not at TRON_API_URL; empty: the same URLs. */
  tronSolidityUrls: string[];
  confirmations: Record<Chain, number>;
  tokenContracts: Record<string, string>;
  chainPollMs: number;
  settlementDelayS: number;
  logLevel: string;
  redisUrl: string | null;
  referral: ReferralTerms;
  /** SMTP_URL and MAIL_FROM; null when SMTP_URL is unset (no e-mail is sent). */
  mail: MailConfig | null;
}

/** Where e-mail goes out (README "E-mail"). The password is never logged nor put in a message. */
export interface MailConfig {
  host: string;
  port: number;
  /** smtps: TLS from the first byte; smtp: STARTTLS when the server offers it. */
  secure: boolean;
  user: string | null;
  pass: string | null;
  from: string;
}

/** The referral program's terms (CONTRACT.md "Referral program"). */
export interface ReferralTerms {
  /** Share of the service's fee on a referred merchant's live deposit credited as commission. */
  rateBps: number;
  /** Months a referral earns from the referred merchant's signup; 0: as long as it uses the service. */
  months: number;
  /** Smallest referral payout, in dollars (= USDT_TRC20), as a decimal string. */
  minPayoutUsd: string;
  /** Business days (Saturdays and Sundays skipped) from a referral payout's request to its `due_at`. */
  payoutDays: number;
}

export type TrustProxy = false | 1 | string[];

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function bad(name: string, why: string): never {
  throw new ConfigError(`invalid configuration: ${name} ${why}`);
}

/** A set, non-empty value; undefined when unset. An empty string counts as unset except where noted. */
function opt(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

function int(env: Env, name: string, dflt: number, min: number, max: number): number {
  const v = opt(env, name);
  if (v === undefined) return dflt;
  if (!/^\d+$/.test(v)) bad(name, `must be a whole number, got "${v}"`);
  const n = Number(v);
  if (n < min || n > max) bad(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

/** A dollar amount: more than 0, at most 2 decimals, kept as its decimal string. */
function dollars(env: Env, name: string, dflt: string): string {
  const v = opt(env, name);
  if (v === undefined) return dflt;
  if (!/^\d{1,9}(\.\d{1,2})?$/.test(v) || Number(v) <= 0) bad(name, `must be an amount of dollars with at most 2 decimals, more than 0, got "${v}"`);
  return v;
}

function flag(env: Env, name: string): boolean {
  const v = opt(env, name);
  if (v === undefined || v === '0' || v === 'false') return false;
  if (v === '1' || v === 'true') return true;
  return bad(name, `must be 1 or 0, got "${v}"`);
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const v = opt(env, name);
  if (v === undefined) return undefined;
  let u: URL;
  // a database, Redis or RPC URL may carry a password: the message shows it without its user part
  try { u = new URL(v); } catch { return bad(name, `must be a URL, got "${v.replace(/\/\/.*@/, '//…@')}"`); }
  if (!protocols.includes(u.protocol)) bad(name, `must use ${protocols.join(' or ')}, got "${u.protocol}"`);
  return v.replace(/\/+$/, '');
}

/**
 * SMTP_URL (`smtp://user:pass@host:587`, `smtps://user:pass@host:465`) and MAIL_FROM. Unlike
 * url(), no message repeats the value: it carries the SMTP password.
 */
function parseMail(env: Env): MailConfig | null {
  const v = opt(env, 'SMTP_URL');
  const from = opt(env, 'MAIL_FROM');
  if (v === undefined) {
    if (from !== undefined) bad('MAIL_FROM', 'is set but SMTP_URL is not: set SMTP_URL too, or unset MAIL_FROM');
    return null;
  }
  let u: URL;
  try { u = new URL(v); } catch { return bad('SMTP_URL', 'must be a URL such as smtp://user:password@host:587'); }
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') bad('SMTP_URL', `must use smtp: or smtps:, got "${u.protocol}"`);
  if (u.hostname === '') bad('SMTP_URL', 'must name a host, such as smtp://user:password@host:587');
  if ((u.pathname !== '' && u.pathname !== '/') || u.search !== '' || u.hash !== '') bad('SMTP_URL', 'must be only smtp://user:password@host:port (no path or query)');
  if (from === undefined) bad('MAIL_FROM', 'must be set when SMTP_URL is: the sender of the e-mails, such as "Gateway <gateway@example.com>"');
  // An address alone, or a name and the address in angle brackets; no line breaks (header injection).
  if (!/^([^\r\n<>@]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/.test(from)) {
    bad('MAIL_FROM', `must be an e-mail address or "Name <address>", got ${JSON.stringify(from)}`);
  }
  const secure = u.protocol === 'smtps:';
  return {
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port === '' ? (secure ? 465 : 587) : Number(u.port),
    secure,
    user: u.username === '' ? null : decodeURIComponent(u.username),
    pass: u.password === '' ? null : decodeURIComponent(u.password),
    from,
  };
}

/** Reads a secret from DATA_DIR, or creates it there (mode 0600) on first start. */
function persistedSecret(dataDir: string, file: string, make: () => string): { value: string; generated: boolean } {
  const p = path.join(dataDir, file);
  // DATA_DIR holds generated secrets and the embedded database: the service's user only (0700).
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if ((fs.statSync(dataDir).mode & 0o077) !== 0) fs.chmodSync(dataDir, 0o700);
  if (fs.existsSync(p)) return { value: fs.readFileSync(p, 'utf8').trim(), generated: true };
  const value = make();
  // 'wx' fails if another process created it meanwhile; then read theirs.
  try {
    fs.writeFileSync(p, `${value}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return { value: fs.readFileSync(p, 'utf8').trim(), generated: true };
  }
  return { value, generated: true };
}

/** A comma-separated list of URLs (each checked like url()); empty when unset. */
function urlList(env: Env, name: string, protocols: string[]): string[] {
  const v = opt(env, name);
  if (v === undefined) return [];
  return v.split(',').map((s) => s.trim()).filter(Boolean).map((item) => url({ [name]: item }, name, protocols)!);
}

function parseRetryDelays(env: Env): number[] {
  const v = opt(env, 'WEBHOOK_RETRY_DELAYS');
  if (v === undefined) return DEFAULT_WEBHOOK_RETRY_DELAYS;
  const parts = v.split(',').map((s) => s.trim());
  if (parts.length !== 6 || parts.some((p) => !/^\d+$/.test(p))) {
    bad('WEBHOOK_RETRY_DELAYS', `must be six whole numbers of seconds separated by commas, got "${v}"`);
  }
  return parts.map(Number);
}

function parseRateSources(env: Env): RateSourceName[] {
  const v = opt(env, 'RATE_SOURCES');
  if (v === undefined) return [...RATE_SOURCE_NAMES];
  const names: RateSourceName[] = [];
  for (const item of v.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean)) {
    if (!(RATE_SOURCE_NAMES as readonly string[]).includes(item)) {
      bad('RATE_SOURCES', `must name sources among ${RATE_SOURCE_NAMES.join(', ')} separated by commas, got "${item}"`);
    }
    if (!names.includes(item as RateSourceName)) names.push(item as RateSourceName);
  }
  if (names.length === 0) bad('RATE_SOURCES', `must name at least one source, got "${v}"`);
  return names;
}

function parseRateSourceUrls(env: Env): Partial<Record<RateSourceName, string>> {
  const urls: Partial<Record<RateSourceName, string>> = {};
  for (const name of RATE_SOURCE_NAMES) {
    const u = url(env, `RATE_SOURCE_${name.toUpperCase()}_URL`, ['http:', 'https:']);
    if (u !== undefined) urls[name] = u;
  }
  return urls;
}

/**
 * The token contracts TOKEN_CONTRACTS may replace, with the address form of each one's chain. A name
 * not among them (a misspelt token, a native coin) was dropped without a word, so the mainnet
 * contract was looked for on the test node and the token quietly left out; an address of another
 * form reached the chain's node (or the checkout page's wallet links) as it was. Both stop the
 * start now, naming the variable, like any other wrong setting.
 */
const TOKEN_CONTRACT_FORMS: Record<string, RegExp> = {
  USDT_ERC20: /^0x[0-9a-fA-F]{40}$/, USDC_ERC20: /^0x[0-9a-fA-F]{40}$/,
  USDT_BEP20: /^0x[0-9a-fA-F]{40}$/, USDC_BEP20: /^0x[0-9a-fA-F]{40}$/,
  USDT_TRC20: /^T[1-9A-HJ-NP-Za-km-z]{33}$/,
};

function parseTokenContracts(env: Env): Record<string, string> {
  const v = opt(env, 'TOKEN_CONTRACTS');
  if (v === undefined) return {};
  const out: Record<string, string> = {};
  for (const item of v.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([A-Z0-9_]+)=(\S+)$/.exec(item);
    if (!m) bad('TOKEN_CONTRACTS', `must be TOKEN=address pairs separated by commas, got "${item}"`);
    const form = Object.hasOwn(TOKEN_CONTRACT_FORMS, m[1]) ? TOKEN_CONTRACT_FORMS[m[1]] : undefined;
    if (!form) bad('TOKEN_CONTRACTS', `must name tokens among ${Object.keys(TOKEN_CONTRACT_FORMS).join(', ')}, got "${item}"`);
    if (!form.test(m[2])) bad('TOKEN_CONTRACTS', `must give ${m[1]} a contract address of its chain (${m[1] === 'USDT_TRC20' ? 'T…, base58' : '0x and 40 hex digits'}), got "${item}"`);
    out[m[1]] = m[2];
  }
  return out;
}

/**
 * TRUST_PROXY (CONTRACT.md): `1` trusts one proxy (the client is the last X-Forwarded-For entry, the
 * one that proxy appended); a list of addresses and CIDR ranges trusts exactly those (the client is
 * the right-most entry not among them). Never "every hop": the client's own entries stay untrusted.
 */
function parseTrustProxy(env: Env): TrustProxy {
  const v = opt(env, 'TRUST_PROXY');
  if (v === undefined || v === '0' || v === 'false') return false;
  if (v === '1') return 1;
  const items = v.split(',').map((s) => s.trim()).filter(Boolean);
  for (const item of items) {
    const [addr, bits, extra] = item.split('/');
    const family = net.isIP(addr);
    const maxBits = family === 6 ? 128 : 32;
    if (family === 0 || extra !== undefined || (bits !== undefined && (!/^\d{1,3}$/.test(bits) || Number(bits) > maxBits))) {
      bad('TRUST_PROXY', `must be 1 or a comma-separated list of proxy addresses or CIDR ranges, got "${item}"`);
    }
  }
  if (items.length === 0) bad('TRUST_PROXY', `must be 1 or a list of proxy addresses, got "${v}"`);
  return items;
}

export function loadConfig(env: Env = process.env): Config {
  const port = int(env, 'PORT', 3000, 0, 65535);
  const host = opt(env, 'HOST') ?? '127.0.0.1';
  const publicUrl = url(env, 'PUBLIC_URL', ['http:', 'https:']) ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  // CHECKOUT_URL set to an empty string means "serve no page"; unset means PUBLIC_URL.
  const checkoutUrl = env.CHECKOUT_URL === undefined ? publicUrl
    : env.CHECKOUT_URL.trim() === '' ? null : url(env, 'CHECKOUT_URL', ['http:', 'https:'])!;
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']) ?? null;
  const dataDir = path.resolve(opt(env, 'DATA_DIR') ?? './data');

  let authSecret = opt(env, 'AUTH_SECRET');
  if (authSecret !== undefined && authSecret.length < 32) bad('AUTH_SECRET', 'must be at least 32 characters');
  authSecret ??= persistedSecret(dataDir, 'auth-secret', () => crypto.randomBytes(32).toString('hex')).value;
  // webhook secrets have a key of their own: rotating AUTH_SECRET leaves them readable
  let webhookSecretKey = opt(env, 'WEBHOOK_SECRET_KEY');
  if (webhookSecretKey !== undefined && webhookSecretKey.length < 32) bad('WEBHOOK_SECRET_KEY', 'must be at least 32 characters');
  webhookSecretKey ??= persistedSecret(dataDir, 'webhook-secret-key', () => crypto.randomBytes(32).toString('hex')).value;

  let walletMnemonic = opt(env, 'WALLET_MNEMONIC');
  let walletMnemonicGenerated = false;
  if (walletMnemonic !== undefined) {
    walletMnemonic = walletMnemonic.split(/\s+/).join(' ');
    if (!validateMnemonic(walletMnemonic, wordlist)) bad('WALLET_MNEMONIC', 'is not a valid BIP-39 English mnemonic');
  } else {
    walletMnemonic = persistedSecret(dataDir, 'wallet-mnemonic', () => generateMnemonic(wordlist, 256)).value;
    walletMnemonicGenerated = true;
    if (!validateMnemonic(walletMnemonic, wordlist)) bad('WALLET_MNEMONIC', `stored in ${dataDir} is not a valid mnemonic`);
  }

  const passwordScryptN = int(env, 'PASSWORD_SCRYPT_N', 2 ** 17, 2 ** 14, 2 ** 20);
  if ((passwordScryptN & (passwordScryptN - 1)) !== 0) bad('PASSWORD_SCRYPT_N', `must be a power of two, got ${passwordScryptN}`);

  const marketFile = opt(env, 'MARKET_FILE') ?? null;
  if (marketFile !== null && !fs.existsSync(marketFile)) bad('MARKET_FILE', `names a file that does not exist: ${marketFile}`);

  const rateRefreshS = int(env, 'RATE_REFRESH_S', 30, 1, 3600);
  const rateMaxAgeS = int(env, 'RATE_MAX_AGE_S', 120, 1, 86_400);
  // A shorter age would let every rate go stale between two refreshes.
  if (rateMaxAgeS < rateRefreshS) bad('RATE_MAX_AGE_S', `must be at least RATE_REFRESH_S (${rateRefreshS}), got ${rateMaxAgeS}`);

  const confirmations = { ...DEFAULT_CONFIRMATIONS };
  for (const chain of CHAINS) {
    confirmations[chain] = int(env, `CONFIRMATIONS_${chain.toUpperCase()}`, DEFAULT_CONFIRMATIONS[chain], 1, 10_000);
  }

  const logLevel = opt(env, 'LOG_LEVEL') ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    bad('LOG_LEVEL', `must be one of fatal, error, warn, info, debug, trace, silent, got "${logLevel}"`);
  }

  const adminToken = opt(env, 'ADMIN_TOKEN') ?? null;
  // Sent as `Authorization: Bearer <token>`: one run of visible ASCII is all such a header carries,
  // so any other token would make every /admin request answer 401 (in any environment).
  if (adminToken !== null && !/^[\x21-\x7e]+$/.test(adminToken)) {
    bad('ADMIN_TOKEN', `must be visible ASCII characters with no spaces (it is sent as Authorization: Bearer <token>): use ${ADMIN_TOKEN_ADVICE}`);
  }
  const webhookAllowPrivate = flag(env, 'WEBHOOK_ALLOW_PRIVATE');
  if (env.NODE_ENV === 'production') refuseDevelopmentSettings(adminToken, webhookAllowPrivate);

  return {
    port, host, publicUrl, checkoutUrl, databaseUrl, dataDir, authSecret, webhookSecretKey, passwordScryptN, walletMnemonic, walletMnemonicGenerated,
    adminToken,
    trustProxy: parseTrustProxy(env),
    webhookAllowPrivate,
    webhookRetryDelaysS: parseRetryDelays(env),
    webhookTimeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    simulationStepMs: int(env, 'SIMULATION_STEP_MS', 2000, 0, 600_000),
    marketFile,
    rateSources: parseRateSources(env),
    rateSourceUrls: parseRateSourceUrls(env),
    rateRefreshS,
    rateMaxAgeS,
    rpc: {
      ethereum: urlList(env, 'ETHEREUM_RPC_URL', ['http:', 'https:']),
      bsc: urlList(env, 'BSC_RPC_URL', ['http:', 'https:']),
      bitcoin: urlList(env, 'BITCOIN_RPC_URL', ['http:', 'https:']),
      litecoin: urlList(env, 'LITECOIN_RPC_URL', ['http:', 'https:']),
      dogecoin: urlList(env, 'DOGECOIN_RPC_URL', ['http:', 'https:']),
      tron: urlList(env, 'TRON_API_URL', ['http:', 'https:']),
      xrp: urlList(env, 'XRP_RPC_URL', ['http:', 'https:', 'ws:', 'wss:']),
    },
    tronSolidityUrls: urlList(env, 'TRON_SOLIDITY_URL', ['http:', 'https:']),
    confirmations,
    tokenContracts: parseTokenContracts(env),
    chainPollMs: int(env, 'CHAIN_POLL_MS', 5000, 100, 3_600_000),
    settlementDelayS: int(env, 'SETTLEMENT_DELAY_S', 60, 0, 86_400),
    logLevel,
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']) ?? null,
    referral: {
      rateBps: int(env, 'REFERRAL_RATE_BPS', 2500, 0, 10_000),
      months: int(env, 'REFERRAL_MONTHS', 12, 0, 1200),
      minPayoutUsd: dollars(env, 'REFERRAL_MIN_PAYOUT_USD', '50'),
      payoutDays: int(env, 'REFERRAL_PAYOUT_DAYS', 3, 0, 365),
    },
    mail: parseMail(env),
  };
}

/** Below this many characters ADMIN_TOKEN is too easy to guess for the operator API. */
export const ADMIN_TOKEN_MIN_LENGTH = 32;
/** How to make a long enough one: said by the start-up warning and the production refusal alike. */
const ADMIN_TOKEN_ADVICE = `at least ${ADMIN_TOKEN_MIN_LENGTH} random ones (e.g. openssl rand -hex 32)`;

/**
 * The start-up warning for a short ADMIN_TOKEN; null when it is long enough or unset. Outside
 * NODE_ENV=production it is only a warning: development setups and the outside contract check
 * start the service with short tokens.
 */
export function adminTokenWarning(adminToken: string | null): string | null {
  if (adminToken === null || adminToken.length >= ADMIN_TOKEN_MIN_LENGTH) return null;
  return `ADMIN_TOKEN has ${adminToken.length} characters: use ${ADMIN_TOKEN_ADVICE}`;
}

/** NODE_ENV=production refuses what is only a warning in development: a guessable operator token, webhooks to private hosts. */
function refuseDevelopmentSettings(adminToken: string | null, webhookAllowPrivate: boolean): void {
  if (adminToken !== null && adminToken.length < ADMIN_TOKEN_MIN_LENGTH) {
    bad('ADMIN_TOKEN', `has ${adminToken.length} characters: NODE_ENV=production needs ${ADMIN_TOKEN_ADVICE}`);
  }
  if (webhookAllowPrivate) bad('WEBHOOK_ALLOW_PRIVATE', 'is for development only: unset it under NODE_ENV=production');
}
