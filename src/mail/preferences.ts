// A member's choice of which notifications are e-mailed to them (README "E-mail"). By default only
// "Payout requested" of a referral payout is (spec 6.3: "emailed by default"); a member may turn it
// off, and turn on every notification of categories their role sees.
import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/index.ts';
import { badRequest, NOTHING_TO_UPDATE } from '../platform/errors.ts';
import { visibleTo, type Category, type Role } from '../notifications/categories.ts';
import { PAYOUT_REQUESTED_TITLE } from '../affiliate/index.ts';
import { mailPreferences } from './schema.ts';

/** The notification mailed by default: a referral payout's request (its title of spec 6.3). */
export const REFERRAL_PAYOUT_REQUESTED = { category: 'affiliates', title: PAYOUT_REQUESTED_TITLE } as const;

export interface MailPreferences {
  referral_payout_requested: boolean;
  categories: Category[];
}

export const DEFAULT_PREFERENCES: MailPreferences = { referral_payout_requested: true, categories: [] };

export const PAYOUT_REQUESTED_MESSAGE = 'referral_payout_requested must be true or false';
/** A role's categories are those of CONTRACT.md "Notifications" it lists (affiliates: owners and finance; team: owners). */
export const CATEGORIES_MESSAGE = 'categories must be a list of notification categories your role sees';

/** A member's mail_preferences row as a choice; no row (null, undefined): the defaults. */
export function preferencesFrom(row: { referralPayoutRequested: boolean; categories: string[] } | null | undefined): MailPreferences {
  if (!row) return { ...DEFAULT_PREFERENCES };
  return { referral_payout_requested: row.referralPayoutRequested, categories: row.categories as Category[] };
}

/**
 * The choice as the member sees and sets it: the categories of their role now, in the categories'
 * order. Those chosen under another role stay stored (a role changed back finds them) but are
 * neither shown nor asked back, so a page that saves what it was shown is not refused; they are
 * not mailed either, as a member is mailed only what their role sees (subscriber.ts, recipient.ts).
 */
export function asSeenBy(p: MailPreferences, role: Role): MailPreferences {
  return { ...p, categories: visibleTo(role).filter((c) => p.categories.includes(c)) };
}

export async function preferencesOf(ex: Executor, userId: string, role: Role): Promise<MailPreferences> {
  const [row] = await ex.select().from(mailPreferences).where(eq(mailPreferences.userId, userId)).limit(1);
  return asSeenBy(preferencesFrom(row), role);
}

/** Whether a notification of `category` titled `title` is e-mailed to a member who chose `p`. */
export function wantsMail(p: MailPreferences, category: string, title: string): boolean {
  if ((p.categories as string[]).includes(category)) return true;
  return p.referral_payout_requested && category === REFERRAL_PAYOUT_REQUESTED.category && title === REFERRAL_PAYOUT_REQUESTED.title;
}

/**
 * PATCH body `{referral_payout_requested?, categories?}`: what is given replaces what was chosen.
 * Categories are those the member's role sees (a finance member cannot ask for `team`); they replace
 * the chosen categories of that role, those of other roles kept (asSeenBy).
 */
export async function updatePreferences(ex: Executor, userId: string, role: Role, body: Record<string, unknown>, now: Date): Promise<MailPreferences> {
  const { referral_payout_requested: flag, categories } = body;
  if (flag === undefined && categories === undefined) throw badRequest(NOTHING_TO_UPDATE);
  if (flag !== undefined && typeof flag !== 'boolean') throw badRequest(PAYOUT_REQUESTED_MESSAGE);
  const visible: readonly string[] = visibleTo(role);
  if (categories !== undefined && (!Array.isArray(categories) || !categories.every((c) => typeof c === 'string' && visible.includes(c)))) {
    throw badRequest(CATEGORIES_MESSAGE);
  }
  // in the order of the categories, each once
  const chosen = categories === undefined ? undefined : visibleTo(role).filter((c) => (categories as string[]).includes(c));
  // One statement that writes only what is given: a change to the other field committed meanwhile
  // (a second tab) is kept, where reading the row first and writing it whole would undo it.
  // (the lists as comma-joined text: category names hold no comma)
  const kept = sql`array(select c from unnest(${mailPreferences.categories}) as c where not (c = any(string_to_array(${visible.join(',')}, ','))))`;
  const [row] = await ex.insert(mailPreferences).values({
    userId, referralPayoutRequested: flag ?? DEFAULT_PREFERENCES.referral_payout_requested, categories: chosen ?? DEFAULT_PREFERENCES.categories, updatedAt: now,
  }).onConflictDoUpdate({
    target: mailPreferences.userId,
    set: {
      updatedAt: now,
      ...(flag === undefined ? {} : { referralPayoutRequested: flag }),
      ...(chosen === undefined ? {} : { categories: sql`${kept} || string_to_array(${chosen.join(',')}, ',')` }),
    },
  }).returning();
  return asSeenBy(preferencesFrom(row), role);
}
