import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { adminTokenWarning, ConfigError, loadConfig } from './config.ts';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'gw-config-'));

describe('config', () => {
  it('has the contract defaults', () => {
    const dir = tmp();
    const c = loadConfig({ DATA_DIR: dir });
    expect(c.port).toBe(3000);
    expect(c.host).toBe('127.0.0.1');
    expect(c.publicUrl).toBe('http://127.0.0.1:3000');
    expect(c.checkoutUrl).toBe(c.publicUrl);
    expect(c.databaseUrl).toBeNull();
    expect(c.webhookRetryDelaysS).toEqual([60, 300, 1800, 7200, 21600, 86400]);
    expect(c.webhookTimeoutMs).toBe(10000);
    expect(c.simulationStepMs).toBe(2000);
    expect(c.chainPollMs).toBe(5000);
    expect(c.settlementDelayS).toBe(60);
    expect(c.confirmations.bitcoin).toBe(3);
    expect(c.confirmations.tron).toBe(20);
    expect(c.adminToken).toBeNull();
    expect(c.referral).toEqual({ rateBps: 2500, months: 12, minPayoutUsd: '50', payoutDays: 3 });
    expect(c.rateSources).toEqual(['coinbase', 'kraken', 'binance', 'bitstamp', 'okx']);
    expect(c.rateSourceUrls).toEqual({});
    expect(c.rateRefreshS).toBe(30);
    expect(c.rateMaxAgeS).toBe(120);
    expect(c.rpc.ethereum).toEqual([]);
    expect(c.tronSolidityUrls).toEqual([]);
  });

  it('reads the referral terms', () => {
    const c = loadConfig({ DATA_DIR: tmp(), REFERRAL_RATE_BPS: '1000', REFERRAL_MONTHS: '0', REFERRAL_MIN_PAYOUT_USD: '25.5', REFERRAL_PAYOUT_DAYS: '0' });
    expect(c.referral).toEqual({ rateBps: 1000, months: 0, minPayoutUsd: '25.5', payoutDays: 0 });
  });

  it('reads the live market settings', () => {
    const c = loadConfig({
      DATA_DIR: tmp(), RATE_SOURCES: ' Kraken, okx,kraken ', RATE_SOURCE_KRAKEN_URL: 'http://127.0.0.1:9999/', RATE_REFRESH_S: '5', RATE_MAX_AGE_S: '5',
    });
    expect(c.rateSources).toEqual(['kraken', 'okx']);
    expect(c.rateSourceUrls).toEqual({ kraken: 'http://127.0.0.1:9999' });
    expect(c.rateRefreshS).toBe(5);
    expect(c.rateMaxAgeS).toBe(5);
  });

  it('takes several node URLs per chain, in order, separated by commas', () => {
    const c = loadConfig({
      DATA_DIR: tmp(), ETHEREUM_RPC_URL: 'http://a:8545/, https://b.example/rpc', XRP_RPC_URL: 'wss://x.example',
      TRON_API_URL: 'http://t:8090', TRON_SOLIDITY_URL: 'http://t:8091',
    });
    expect(c.rpc.ethereum).toEqual(['http://a:8545', 'https://b.example/rpc']);
    expect(c.rpc.xrp).toEqual(['wss://x.example']);
    expect(c.rpc.tron).toEqual(['http://t:8090']);
    expect(c.tronSolidityUrls).toEqual(['http://t:8091']);
    expect(c.rpc.bitcoin).toEqual([]);
  });

  it('refuses a node URL list with one bad entry, naming the variable', () => {
    expect(() => loadConfig({ DATA_DIR: tmp(), BSC_RPC_URL: 'http://ok:8545,ftp://bad' })).toThrow(
      new ConfigError('invalid configuration: BSC_RPC_URL must use http: or https:, got "ftp:"'),
    );
  });

  it('generates AUTH_SECRET, WALLET_MNEMONIC and the webhook secret key once into DATA_DIR with mode 0600 and reuses them', () => {
    const dir = tmp();
    const a = loadConfig({ DATA_DIR: dir });
    const b = loadConfig({ DATA_DIR: dir });
    expect(a.authSecret).toBe(b.authSecret);
    expect(a.walletMnemonic).toBe(b.walletMnemonic);
    expect(a.walletMnemonicGenerated).toBe(true);
    expect(a.walletMnemonic.split(' ')).toHaveLength(24);
    expect(a.webhookSecretKey).toBe(b.webhookSecretKey);
    expect(a.webhookSecretKey).toMatch(/^[0-9a-f]{64}$/);
    expect(loadConfig({ DATA_DIR: tmp(), WEBHOOK_SECRET_KEY: 'k'.repeat(32) }).webhookSecretKey).toBe('k'.repeat(32));
    for (const f of ['auth-secret', 'wallet-mnemonic', 'webhook-secret-key']) {
      expect(fs.statSync(path.join(dir, f)).mode & 0o777).toBe(0o600);
    }
  });

  it('warns at start of an ADMIN_TOKEN shorter than 32 characters', () => {
    expect(adminTokenWarning('admintoken')).toBe('ADMIN_TOKEN has 10 characters: use at least 32 random ones (e.g. openssl rand -hex 32)');
    expect(adminTokenWarning('a'.repeat(32))).toBeNull();
    expect(adminTokenWarning(null)).toBeNull();
  });

  it('refuses an ADMIN_TOKEN no Authorization header can carry, in every environment', () => {
    // The operator sends `Authorization: Bearer <token>`: a space, a control character or anything
    // beyond visible ASCII can never arrive as one token, so every /admin request would answer 401.
    const refusal = new ConfigError('invalid configuration: ADMIN_TOKEN must be visible ASCII characters with no spaces (it is sent as Authorization: Bearer <token>): use at least 32 random ones (e.g. openssl rand -hex 32)');
    for (const token of ['a'.repeat(16) + ' ' + 'b'.repeat(16), 'a'.repeat(32) + '\tb', 'é'.repeat(32), 'a'.repeat(31) + '\u0007']) {
      expect(() => loadConfig({ DATA_DIR: tmp(), ADMIN_TOKEN: token })).toThrow(refusal);
    }
    // surrounding whitespace is trimmed like every other variable's, so a stray newline is harmless
    expect(loadConfig({ DATA_DIR: tmp(), ADMIN_TOKEN: ` ${'a'.repeat(32)}\n` }).adminToken).toBe('a'.repeat(32));
    expect(loadConfig({ DATA_DIR: tmp(), ADMIN_TOKEN: '!~' + 'Az09-._~+/='.repeat(3) }).adminToken).toBe('!~' + 'Az09-._~+/='.repeat(3));
  });

  it('NODE_ENV=production refuses a short ADMIN_TOKEN and WEBHOOK_ALLOW_PRIVATE', () => {
    expect(() => loadConfig({ DATA_DIR: tmp(), NODE_ENV: 'production', ADMIN_TOKEN: 'admintoken' }))
      .toThrow(new ConfigError('invalid configuration: ADMIN_TOKEN has 10 characters: NODE_ENV=production needs at least 32 random ones (e.g. openssl rand -hex 32)'));
    expect(() => loadConfig({ DATA_DIR: tmp(), NODE_ENV: 'production', WEBHOOK_ALLOW_PRIVATE: '1' }))
      .toThrow(new ConfigError('invalid configuration: WEBHOOK_ALLOW_PRIVATE is for development only: unset it under NODE_ENV=production'));
    expect(loadConfig({ DATA_DIR: tmp(), NODE_ENV: 'production', ADMIN_TOKEN: 'a'.repeat(32) }).adminToken).toBe('a'.repeat(32));
    expect(loadConfig({ DATA_DIR: tmp(), NODE_ENV: 'production' }).adminToken).toBeNull();
    // outside production both stay warnings, as the outside contract check relies on
    expect(loadConfig({ DATA_DIR: tmp(), ADMIN_TOKEN: 'admintoken', WEBHOOK_ALLOW_PRIVATE: '1' }).adminToken).toBe('admintoken');
  });

  it('reads SMTP_URL (smtp: with STARTTLS, smtps: with TLS) and MAIL_FROM; unset: no e-mail', () => {
    expect(loadConfig({ DATA_DIR: tmp() }).mail).toBeNull();
    expect(loadConfig({ DATA_DIR: tmp(), SMTP_URL: 'smtp://gw%40x:p%3Ass@mail.example:2525', MAIL_FROM: 'Gateway <gw@x.example>' }).mail)
      .toEqual({ host: 'mail.example', port: 2525, secure: false, user: 'gw@x', pass: 'p:ss', from: 'Gateway <gw@x.example>' });
    expect(loadConfig({ DATA_DIR: tmp(), SMTP_URL: 'smtps://mail.example', MAIL_FROM: 'gw@x.example' }).mail)
      .toEqual({ host: 'mail.example', port: 465, secure: true, user: null, pass: null, from: 'gw@x.example' });
    expect(loadConfig({ DATA_DIR: tmp(), SMTP_URL: 'smtp://u:p@mail.example', MAIL_FROM: 'gw@x.example' }).mail?.port).toBe(587);
  });

  it('never repeats the SMTP password in a message about SMTP_URL', () => {
    for (const SMTP_URL of ['ftp://u:hunter22@mail.example', 'smtp://u:hunter22@mail.example/path', 'smtp://u:hunter22@[bad']) {
      let err: unknown;
      try { loadConfig({ DATA_DIR: tmp(), SMTP_URL, MAIL_FROM: 'gw@x.example' }); } catch (e) { err = e; }
      expect((err as Error).message).toMatch(/^invalid configuration: SMTP_URL /);
      expect((err as Error).message).not.toContain('hunter22');
    }
  });

  it('never repeats the password of a database, Redis or node URL it cannot parse', () => {
    for (const [name, value] of [['DATABASE_URL', 'postgres://gw:hunter22@[db'], ['REDIS_URL', 'redis://:hunter22@[cache'], ['LITECOIN_RPC_URL', 'http://rpc:hunter22@[node']]) {
      let err: unknown;
      try { loadConfig({ DATA_DIR: tmp(), [name]: value }); } catch (e) { err = e; }
      expect((err as Error).message).toMatch(new RegExp(`^invalid configuration: ${name} must be a URL, got ".*//…@`));
      expect((err as Error).message).not.toContain('hunter22');
    }
    expect(() => loadConfig({ DATA_DIR: tmp(), REDIS_URL: 'not a url' })).toThrow('REDIS_URL must be a URL, got "not a url"');
  });

  it('an empty CHECKOUT_URL serves no page', () => {
    expect(loadConfig({ DATA_DIR: tmp(), CHECKOUT_URL: '' }).checkoutUrl).toBeNull();
    expect(loadConfig({ DATA_DIR: tmp(), CHECKOUT_URL: 'https://pay.example.com/' }).checkoutUrl).toBe('https://pay.example.com');
  });

  it('parses lists and overrides', () => {
    const c = loadConfig({
      DATA_DIR: tmp(), WEBHOOK_RETRY_DELAYS: '1,1,1,1,1,1', CONFIRMATIONS_ETHEREUM: '2',
      TOKEN_CONTRACTS: 'USDT_ERC20=0x5FbDB2315678afecb367f032d93F642f64180aa3,USDT_TRC20=TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', TRUST_PROXY: '1', PORT: '8080',
    });
    expect(c.webhookRetryDelaysS).toEqual([1, 1, 1, 1, 1, 1]);
    expect(c.confirmations.ethereum).toBe(2);
    expect(c.tokenContracts).toEqual({ USDT_ERC20: '0x5FbDB2315678afecb367f032d93F642f64180aa3', USDT_TRC20: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' });
    expect(c.trustProxy).toBe(1);
    expect(c.publicUrl).toBe('http://127.0.0.1:8080');
  });

  it('TOKEN_CONTRACTS names only tokens that have a contract, each with an address of its chain', () => {
    const evm = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
    const tron = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
    expect(loadConfig({ DATA_DIR: tmp(), TOKEN_CONTRACTS: `USDC_BEP20=${evm}, USDT_TRC20=${tron}` }).tokenContracts)
      .toEqual({ USDC_BEP20: evm, USDT_TRC20: tron });
    // a misspelt or native token was dropped without a word (its mainnet contract used on the test node)
    for (const item of [`USDT_ERC2O=${evm}`, `ETH=${evm}`, `USDT_ERC20=0xabc`, `USDT_BEP20=${tron}`, `USDT_TRC20=${evm}`]) {
      let err: unknown;
      try { loadConfig({ DATA_DIR: tmp(), TOKEN_CONTRACTS: item }); } catch (e) { err = e; }
      expect(err, item).toBeInstanceOf(ConfigError);
      expect((err as Error).message, item).toMatch(/^invalid configuration: TOKEN_CONTRACTS .*got "/);
    }
  });

  it('creates DATA_DIR with mode 0700 and narrows an existing one', () => {
    const fresh = path.join(tmp(), 'data');
    loadConfig({ DATA_DIR: fresh });
    expect(fs.statSync(fresh).mode & 0o777).toBe(0o700);
    const open = tmp();
    fs.chmodSync(open, 0o755);
    loadConfig({ DATA_DIR: open });
    expect(fs.statSync(open).mode & 0o777).toBe(0o700);
  });

  it('TRUST_PROXY is one proxy (1) or exactly the listed proxies, never every hop', () => {
    expect(loadConfig({ DATA_DIR: tmp() }).trustProxy).toBe(false);
    expect(loadConfig({ DATA_DIR: tmp(), TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(loadConfig({ DATA_DIR: tmp(), TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ DATA_DIR: tmp(), TRUST_PROXY: ' 10.0.0.0/8, 192.168.1.7 ,fd00::/8,::1' }).trustProxy).toEqual(['10.0.0.0/8', '192.168.1.7', 'fd00::/8', '::1']);
    for (const v of ['true', '2', '10.0.0.0/33', 'fd00::/129', 'example.com', '10.0.0.1/8/1']) {
      expect(() => loadConfig({ DATA_DIR: tmp(), TRUST_PROXY: v }), v).toThrow(/TRUST_PROXY/);
    }
  });

  const cases: [Record<string, string>, string][] = [
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ WALLET_MNEMONIC: 'not a mnemonic' }, 'WALLET_MNEMONIC'],
    [{ AUTH_SECRET: 'short' }, 'AUTH_SECRET'],
    [{ WEBHOOK_SECRET_KEY: 'short' }, 'WEBHOOK_SECRET_KEY'],
    [{ WEBHOOK_RETRY_DELAYS: '1,2' }, 'WEBHOOK_RETRY_DELAYS'],
    [{ WEBHOOK_TIMEOUT_MS: '-1' }, 'WEBHOOK_TIMEOUT_MS'],
    [{ TRUST_PROXY: 'yes' }, 'TRUST_PROXY'],
    [{ MARKET_FILE: '/nonexistent/market.json' }, 'MARKET_FILE'],
    [{ CONFIRMATIONS_BITCOIN: '0' }, 'CONFIRMATIONS_BITCOIN'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ PUBLIC_URL: 'nope' }, 'PUBLIC_URL'],
    [{ TOKEN_CONTRACTS: 'garbage' }, 'TOKEN_CONTRACTS'],
    [{ REDIS_URL: 'http://x' }, 'REDIS_URL'],
    [{ REFERRAL_RATE_BPS: '10001' }, 'REFERRAL_RATE_BPS'],
    [{ REFERRAL_MONTHS: '-1' }, 'REFERRAL_MONTHS'],
    [{ REFERRAL_MIN_PAYOUT_USD: '0' }, 'REFERRAL_MIN_PAYOUT_USD'],
    [{ REFERRAL_MIN_PAYOUT_USD: '10.001' }, 'REFERRAL_MIN_PAYOUT_USD'],
    [{ REFERRAL_PAYOUT_DAYS: 'three' }, 'REFERRAL_PAYOUT_DAYS'],
    [{ RATE_SOURCES: 'coinbase,coingecko' }, 'RATE_SOURCES'],
    [{ RATE_SOURCES: ' , ' }, 'RATE_SOURCES'],
    [{ RATE_SOURCE_OKX_URL: 'ftp://okx' }, 'RATE_SOURCE_OKX_URL'],
    [{ RATE_SOURCE_BINANCE_URL: 'not a url' }, 'RATE_SOURCE_BINANCE_URL'],
    [{ RATE_REFRESH_S: '0' }, 'RATE_REFRESH_S'],
    [{ RATE_REFRESH_S: 'soon' }, 'RATE_REFRESH_S'],
    [{ RATE_MAX_AGE_S: '10' }, 'RATE_MAX_AGE_S'],
    [{ SMTP_URL: 'http://mail.example:25', MAIL_FROM: 'a@b.example' }, 'SMTP_URL'],
    [{ SMTP_URL: 'smtp://', MAIL_FROM: 'a@b.example' }, 'SMTP_URL'],
    [{ SMTP_URL: 'smtp://mail.example/x', MAIL_FROM: 'a@b.example' }, 'SMTP_URL'],
    [{ SMTP_URL: 'smtp://mail.example' }, 'MAIL_FROM'],
    [{ SMTP_URL: 'smtp://mail.example', MAIL_FROM: 'not an address' }, 'MAIL_FROM'],
    [{ SMTP_URL: 'smtp://mail.example', MAIL_FROM: 'a@b.example\r\nBcc: x@y.example' }, 'MAIL_FROM'],
    [{ MAIL_FROM: 'a@b.example' }, 'MAIL_FROM'],
  ];
  it.each(cases)('refuses %j naming %s in one line', (env, name) => {
    let err: unknown;
    try { loadConfig({ DATA_DIR: tmp(), ...env }); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(ConfigError);
    const msg = (err as Error).message;
    expect(msg).toContain(name);
    expect(msg).not.toContain('\n');
  });
});
