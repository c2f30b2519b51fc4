// The notification object of CONTRACT.md "Notifications"; `read_at` is the reader's own mark.
import type { NotificationRow } from './schema.ts';

export interface NotificationJson {
  id: string; merchant_id: string; livemode: boolean; category: string; title: string; body: string;
  subject?: string; read_at?: string; created_at: string;
}

export function notificationJson(n: Omit<NotificationRow, 'seq'>, readAt: Date | null): NotificationJson {
  return {
    id: n.id, merchant_id: n.merchantId, livemode: n.livemode, category: n.category, title: n.title, body: n.body,
    ...(n.subject !== null ? { subject: n.subject } : {}),
    ...(readAt ? { read_at: readAt.toISOString() } : {}),
    created_at: n.createdAt.toISOString(),
  };
}
