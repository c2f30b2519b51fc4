// Text put into the HTML the service writes itself (the checkout page's shell, the payment link's
// refusal page): escaped for an element's content or a double-quoted attribute.
export const htmlText = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
export const htmlAttr = (s: string): string => htmlText(s).replace(/"/g, '&quot;');
