// The accounts room's service object: what routes and other rooms use.
import type { Platform } from '../platform/context.ts';
import type { RateLimiter } from '../platform/rate-limit.ts';
import { createRateLimiter } from '../platform/redis-rate-limit.ts';
import { AccessTokens } from './access-tokens.ts';
import { Authenticator } from './authenticate.ts';
import { signup, type SignupHook, type SignupInput, type SignupResult } from './signup.ts';
import { PayerNameCache } from './payer-names.ts';
import type { InvitationHook } from './invitations.ts';
import { setPasswordCost } from './passwords.ts';
import type { RequestOrigin } from '../audit/index.ts';

export class AccountsService {
  readonly platform: Platform;
  readonly tokens: AccessTokens;
  /** Per-IP and per-key limits: shared through Redis when REDIS_URL is set, else counted in this process. */
  readonly limiter: RateLimiter & { close?: () => Promise<void> };
  readonly authn: Authenticator;
  /** Merchant and store names for the payer's view, kept in process (renames come from the outbox). */
  readonly names: PayerNameCache;
  #signupHook: SignupHook | undefined;
  #invitationHook: InvitationHook | undefined;

  constructor(platform: Platform, limiter?: RateLimiter & { close?: () => Promise<void> }) {
    this.platform = platform;
    setPasswordCost(platform.config.passwordScryptN);
    this.tokens = new AccessTokens(platform.config.authSecret);
    this.limiter = limiter ?? createRateLimiter(platform.config.redisUrl, platform.log);
    this.authn = new Authenticator(platform.db, platform.clock, this.limiter, this.tokens, platform.log);
    this.names = new PayerNameCache(platform.db);
    platform.outbox.subscribe(this.names.subscriber);
  }

  /** Another room joins every signup's transaction (the referral program: code and referral). */
  useSignupHook(hook: SignupHook): void {
    this.#signupHook = hook;
  }

  /** Another room joins every invitation's transaction (the mail room, with SMTP configured: the invitee's mail). */
  useInvitationHook(hook: InvitationHook): void {
    this.#invitationHook = hook;
  }

  get invitationHook(): InvitationHook | undefined {
    return this.#invitationHook;
  }

  signup(input: SignupInput, origin: RequestOrigin): Promise<SignupResult> {
    return signup(this.platform.db, input, this.platform.clock.now(), origin, this.#signupHook);
  }

  async close(): Promise<void> {
    await this.authn.close();
    await this.limiter.close?.();
  }
}
