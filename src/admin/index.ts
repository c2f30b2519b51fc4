export { adminRoute, adminTokenMatches, INVALID_ADMIN_TOKEN, type AdminRouteSpec } from './guard.ts';
