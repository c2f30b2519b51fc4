// Pure: the notification categories of CONTRACT.md "Notifications", who may see each, and which
// belong to no mode. The list, the unread counts, the read marks and the dashboard socket all
// read these, so a member never learns of a notification their role may not see.
export const CATEGORIES = ['account', 'payments', 'webhooks', 'payouts', 'affiliates', 'support', 'team', 'security'] as const;
export type Category = (typeof CATEGORIES)[number];
export type Role = 'owner' | 'developer' | 'finance' | 'viewer';

export const isCategory = (v: unknown): v is Category => typeof v === 'string' && (CATEGORIES as readonly string[]).includes(v);
export const CATEGORY_MESSAGE = `category must be one of ${CATEGORIES.join(', ')}`;

const EVERYONE: readonly Role[] = ['owner', 'developer', 'finance', 'viewer'];
const AUDIENCE: Partial<Record<Category, readonly Role[]>> = {
  affiliates: ['owner', 'finance'],
  team: ['owner'],
};

/** The roles that receive and list notifications of a category (anything unknown: everyone). */
export const rolesOf = (category: unknown): readonly Role[] => (isCategory(category) ? AUDIENCE[category] ?? EVERYONE : EVERYONE);

/** The categories a role sees. */
export const visibleTo = (role: Role): Category[] => CATEGORIES.filter((c) => rolesOf(c).includes(role));

/** What belongs to no mode has `livemode` true (and is listed without `?mode=test`). */
const MODELESS: ReadonlySet<Category> = new Set(['support', 'team', 'security', 'account', 'affiliates']);
export const isModeless = (c: Category): boolean => MODELESS.has(c);
