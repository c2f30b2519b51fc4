// The User object of spec part 2.
import { iso } from './merchant.ts';
import type { UserRow } from './schema.ts';

export function userJson(u: UserRow): Record<string, unknown> {
  return {
    id: u.id,
    merchant_id: u.merchantId,
    email: u.email,
    role: u.role,
    created_at: iso(u.createdAt),
    ...(u.lastLoginAt ? { last_login_at: iso(u.lastLoginAt) } : {}),
  };
}
