export { adminRoute, adminTokenMatches, checkAdminToken, INVALID_ADMIN_TOKEN, type AdminRouteSpec, type AdminTokenCheck } from './guard.ts';
