export { AccountsService } from './service.ts';
export { apiRoute, dashboardRoute, DASHBOARD_ROUTES, type DashboardRouteSpec } from './guards.ts';
export type { Auth, ApiKeyAuth, UserAuth } from './auth-context.ts';
export { ROLES, ANY_ROLE, OWNER, OWNER_DEVELOPER, OWNER_FINANCE, SIMULATORS, isRole, type Role } from './roles.ts';
export { merchantJson, captureSettings, enabledTokensOf, iso, SUSPENDED, type Merchant, type CapturedSettings, type SettlementMode } from './merchant.ts';
export { merchants, users, apiKeys, stores, sessions, auditEntries } from './schema.ts';
export { registerSignupRoutes } from './routes/signup-routes.ts';
export { limitByIp } from './routes/ip-limit.ts';
export { bodyObject } from './validate.ts';
