// Every described route. A new route goes into the list of its area (or a new file added here).
import type { RouteDoc } from '../describe.ts';
import { V1_ROUTES } from './v1.ts';
import { PUBLIC_ROUTES } from './public.ts';
import { MERCHANT_ACCOUNT_ROUTES } from './merchant-account.ts';
import { MERCHANT_MONEY_ROUTES } from './merchant-money.ts';

export const ROUTE_DOCS: readonly RouteDoc[] = [...V1_ROUTES, ...PUBLIC_ROUTES, ...MERCHANT_ACCOUNT_ROUTES, ...MERCHANT_MONEY_ROUTES];
