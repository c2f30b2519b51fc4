// Door of the customers room (CONTRACT.md "Customers"): made from payments through the payments
// room's groups (feed.ts) or by hand (routes.ts).
export { CustomersService, RECENT_PAYMENTS, type PaymentViews } from './service.ts';
export { customerFeed } from './feed.ts';
export { registerCustomerRoutes } from './routes.ts';
export { customerJson, CUSTOMER_UPDATE } from './json.ts';
export { CUSTOMER_EXISTS, EMAIL_REQUIRED } from './input.ts';
export { customers, type CustomerRow } from './schema.ts';
