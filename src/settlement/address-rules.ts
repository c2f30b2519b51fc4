// Pure rules of payout addresses (spec 1 Direct settlement rules 1-2, spec 7 Payout addresses).
import { validateDestinationTag, validatePayoutAddress } from '../chains/addresses/index.ts';
import { badRequest } from '../platform/errors.ts';
import { isToken, type TokenSymbol } from '../tokens/index.ts';
import { longerThan } from '../platform/fields.ts';

/** An address that could redirect payments is used only this long after the change. */
export const ACTIVATION_DELAY_MS = 24 * 60 * 60 * 1000;

export const ONLY_XRP_TAGS = 'only XRP addresses take a destination tag';
export { NOTHING_TO_UPDATE } from '../platform/errors.ts';
export const PASSWORD_INCORRECT = 'password is incorrect';
export const ADDRESS_DELETED = 'address deleted';
export const LABEL_INVALID = 'label must be text of up to 100 characters';
export const DEFAULT_ONLY_TRUE = 'default can only be set to true: make another address the default instead';
export const unsupportedToken = (livemode: boolean): string => `unsupported token in ${livemode ? 'live' : 'test'} mode`;

export interface ActivationFacts {
  livemode: boolean;
  now: Date;
  /** Another address of the coin is in force. */
  otherInForce: boolean;
  /** An address of the coin was deleted before (this one is added after it). */
  deletedBefore: boolean;
  /** The address or tag of an existing address changes. */
  changed: boolean;
}

/**
 * Rule 2: the first live address of a coin is used at once; one that could redirect payments
 * (another address of the coin, a changed address or tag, one added after the coin's last address
 * was deleted) 24 hours later; test addresses at once.
 */
export function activeAt(f: ActivationFacts): Date {
  if (!f.livemode) return f.now;
  const redirects = f.changed || f.otherInForce || f.deletedBefore;
  return redirects ? new Date(f.now.getTime() + ACTIVATION_DELAY_MS) : f.now;
}

export function parseToken(v: unknown, livemode: boolean): TokenSymbol {
  if (!isToken(v)) throw badRequest(unsupportedToken(livemode));
  return v;
}

/** The address in its stored form, or 400 `address is not a valid <network> address`. */
export function parseAddress(token: TokenSymbol, v: unknown, livemode: boolean): string {
  const check = validatePayoutAddress(token, v, livemode);
  if (!check.ok) throw badRequest(check.message);
  return check.normalized;
}

/** A destination tag (XRP only); null removes it, undefined leaves it out. */
export function parseTag(token: TokenSymbol, v: unknown): number | null | undefined {
  if (v === undefined) return undefined;
  if (token !== 'XRP') {
    if (v === null) return undefined;
    throw badRequest(ONLY_XRP_TAGS);
  }
  if (v === null) return null;
  const check = validateDestinationTag(v);
  if (!check.ok) throw badRequest(check.message);
  return check.tag;
}

export function parseLabel(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || longerThan(v, 100)) throw badRequest(LABEL_INVALID);
  return v.trim();
}
