// Spec 7's answer to an unknown payment or checkout token (HTTP 404 and the checkout socket's
// subscribe). A module of its own so the checkout page's bundle can compare with it.
export const PAYMENT_NOT_FOUND = 'payment not found';
