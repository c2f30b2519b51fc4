// Door of the notifications room: in-dashboard notifications (CONTRACT.md "Notifications").
//
// Other rooms raise one inside the transaction of the change it reports:
//
//   await raiseNotification(tx, { merchantId, category: 'support', title: 'Reply from support',
//     body: 'The support team answered your message.', subject: messageId, at: now });
//
// It stores the notification and writes the `notification` event the dashboard socket sends to
// the members whose role may see the category (affiliates: owners and finance; team: owners; the
// rest: everyone). `livemode` matters only for categories of a mode (payments, webhooks, payouts);
// the others belong to no mode and are always live.
export { raiseNotification, NOTIFICATION_EVENT, NOTIFICATION_READ_EVENT, type NewNotification } from './raise.ts';
export { CATEGORIES, CATEGORY_MESSAGE, isCategory, rolesOf, visibleTo, isModeless, type Category } from './categories.ts';
export { notificationJson, type NotificationJson } from './json.ts';
export { notifications, notificationReads, type NotificationRow } from './schema.ts';
export { registerNotificationRoutes } from './routes.ts';
