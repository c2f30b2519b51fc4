export { registerOpenApiRoutes } from './http-routes.ts';
export { buildOpenApiDocument, openApiPath, takesIdempotencyKey } from './document.ts';
export { recordRouteTable, type RegisteredRoute } from './route-table.ts';
export { ROUTE_DOCS } from './routes/index.ts';
export type { RouteDoc } from './describe.ts';
