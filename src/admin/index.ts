export { adminRoute, INVALID_ADMIN_TOKEN } from './guard.ts';
