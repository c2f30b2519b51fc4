// Roles and what each may do (spec 5 "Roles and permissions"). Routes name one of these sets, so
// the whole permission model is readable here.
export const ROLES = ['owner', 'developer', 'finance', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const isRole = (v: unknown): v is Role => typeof v === 'string' && (ROLES as readonly string[]).includes(v);

export const ANY_ROLE: readonly Role[] = ROLES;
export const OWNER: readonly Role[] = ['owner'];
export const OWNER_DEVELOPER: readonly Role[] = ['owner', 'developer'];
export const OWNER_FINANCE: readonly Role[] = ['owner', 'finance'];
/** Simulating a test payment: owners, developers and finance. */
export const SIMULATORS: readonly Role[] = ['owner', 'developer', 'finance'];

export const ROLE_MESSAGE = 'role must be one of owner, developer, finance, viewer';
export const INSUFFICIENT_PERMISSIONS = 'insufficient permissions';
