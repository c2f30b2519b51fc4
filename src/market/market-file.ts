// The static MARKET_FILE of CONTRACT.md: four maps of decimal strings keyed by token symbol. A
// token missing from a map keeps its default; anything else wrong stops the start with a message
// naming the key, so an operator's typo never turns into a silent price. A stablecoin rate other
// than 1 is the one exception: it is priced at 1 and logged (warn), the start goes on.
import fs from 'node:fs';
import { dec, type Decimal } from '../money/index.ts';
import { isToken, tokenDef, TOKENS, type TokenSymbol } from '../tokens/index.ts';
import { DEFAULT_MARKET } from './defaults.ts';
import type { MarketData, TokenMarket } from './market-data.ts';

export class MarketFileError extends Error {
  constructor(message: string) {
    super(`MARKET_FILE: ${message}`);
    this.name = 'MarketFileError';
  }
}

// JSON key → field of TokenMarket, and whether zero is a sensible value for it.
const MAPS = {
  rates: { field: 'rate', zeroAllowed: false },
  network_fee_usd: { field: 'networkFeeUsd', zeroAllowed: true },
  min_usd: { field: 'minUsd', zeroAllowed: true },
  exchange_min_usd: { field: 'exchangeMinUsd', zeroAllowed: true },
} as const satisfies Record<string, { field: keyof TokenMarket; zeroAllowed: boolean }>;
type MapKey = keyof typeof MAPS;

const DECIMAL_STRING = /^\d+(\.\d+)?$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function parseValue(key: string, value: unknown, zeroAllowed: boolean): Decimal {
  if (typeof value !== 'string' || !DECIMAL_STRING.test(value.trim())) {
    throw new MarketFileError(`${key} must be a decimal string such as "1.5", got ${JSON.stringify(value)}`);
  }
  const d = dec(value.trim());
  if (!zeroAllowed && d.isZero()) throw new MarketFileError(`${key} must be greater than 0`);
  return d;
}

/** Market data from the parsed JSON of a MARKET_FILE, over `defaults`. Throws MarketFileError. */
/** `warn` hears what was taken otherwise than written (a stablecoin's rate). */
export function parseMarketData(json: unknown, defaults: MarketData = DEFAULT_MARKET, warn: (message: string) => void = () => {}): MarketData {
  if (!isObject(json)) throw new MarketFileError('must hold a JSON object');
  const fields: Record<TokenSymbol, { -readonly [K in keyof TokenMarket]: TokenMarket[K] }> =
    Object.fromEntries(TOKENS.map((t) => [t, { ...defaults[t] }])) as Record<TokenSymbol, TokenMarket>;
  for (const [mapKey, map] of Object.entries(json)) {
    // own keys only: `in` would take constructor, toString or __proto__ (JSON.parse makes each an own key) for a map
    if (!Object.hasOwn(MAPS, mapKey)) throw new MarketFileError(`unknown key ${mapKey} (expected ${Object.keys(MAPS).join(', ')})`);
    if (!isObject(map)) throw new MarketFileError(`${mapKey} must be an object of token symbol to decimal string`);
    const { field, zeroAllowed } = MAPS[mapKey as MapKey];
    for (const [token, value] of Object.entries(map)) {
      if (!isToken(token)) throw new MarketFileError(`${mapKey}.${token} is not a token (expected one of ${TOKENS.join(', ')})`);
      let d = parseValue(`${mapKey}.${token}`, value, zeroAllowed);
      // USDT and USDC are priced at exactly one dollar, as live mode does (TokenMarket.rate): their
      // settlements' usd_rate is 1 (spec part 2), so another rate here would lock that rate on a
      // payment (and ask the customer for more or fewer tokens) that its settlement values at 1.
      // Not a reason to refuse the start: the figure is known, so it is used and the change said.
      if (field === 'rate' && tokenDef(token).stablecoin && !d.eq(1)) {
        warn(`MARKET_FILE: ${mapKey}.${token} is ${d.toFixed()}: USDT and USDC are priced at one dollar, so 1 is used`);
        d = dec(1);
      }
      fields[token][field] = d;
    }
  }
  for (const t of TOKENS) Object.freeze(fields[t]);
  return Object.freeze(fields);
}

/** Reads and parses MARKET_FILE (done once, at start). */
export function loadMarketFile(path: string, defaults: MarketData = DEFAULT_MARKET, warn?: (message: string) => void): MarketData {
  let text: string;
  try {
    text = fs.readFileSync(path, 'utf8');
  } catch (err) {
    throw new MarketFileError(`cannot read ${path}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new MarketFileError(`${path} is not valid JSON: ${(err as Error).message}`);
  }
  return parseMarketData(json, defaults, warn);
}
