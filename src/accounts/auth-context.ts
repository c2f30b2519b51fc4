// Who is calling: an API key (/v1) or a signed-in team member (/merchant). Set by the guards.
import type { Merchant } from './merchant.ts';
import type { Role } from './roles.ts';
import type { KeyAccess } from './api-keys.ts';

export interface ApiKeyAuth {
  kind: 'api_key';
  keyId: string;
  merchantId: string;
  livemode: boolean;
  storeId: string | null;
  access: KeyAccess;
  merchant: Merchant;
}

export interface UserAuth {
  kind: 'user';
  userId: string;
  merchantId: string;
  sessionId: string;
  role: Role;
  email: string;
  tokenExpiresAt: Date;
  merchant: Merchant;
}

export type Auth = ApiKeyAuth | UserAuth;

declare module 'fastify' {
  interface FastifyRequest {
    auth: Auth | null;
  }
}
