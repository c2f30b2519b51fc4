// The accounts room's service object: what routes and other rooms use.
import type { Platform } from '../platform/context.ts';
import { MemoryRateLimiter, type RateLimiter } from '../platform/rate-limit.ts';
import { AccessTokens } from './access-tokens.ts';
import { Authenticator } from './authenticate.ts';
import { signup, type SignupInput, type SignupResult } from './signup.ts';

export class AccountsService {
  readonly platform: Platform;
  readonly tokens: AccessTokens;
  readonly limiter: RateLimiter;
  readonly authn: Authenticator;

  constructor(platform: Platform, limiter: RateLimiter = new MemoryRateLimiter()) {
    this.platform = platform;
    this.tokens = new AccessTokens(platform.config.authSecret);
    this.limiter = limiter;
    this.authn = new Authenticator(platform.db, platform.clock, limiter, this.tokens, platform.log);
  }

  signup(input: SignupInput): Promise<SignupResult> {
    return signup(this.platform.db, input, this.platform.clock.now());
  }
}
