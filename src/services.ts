// The composition of the rooms' services. Each room adds its service here; routes and workers
// receive this object and never construct services themselves.
import type { Platform } from './platform/context.ts';

export interface Services {
  platform: Platform;
}

export async function createServices(platform: Platform): Promise<Services> {
  return { platform };
}
