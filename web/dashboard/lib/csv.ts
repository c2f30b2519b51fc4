// CSV of what a page shows (RFC 4180: fields with a comma, quote or line break are quoted, quotes
// doubled). A field starting with = + - @ is prefixed with a quote mark so a spreadsheet never
// runs it as a formula (a customer email or order id is text the merchant does not control).
export function csvField(v: unknown): string {
  let s = v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  if (/^[=+\-@\t\r]/.test(s) && !/^-?\d+(\.\d+)?$/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function toCsv(columns: readonly string[], rows: readonly Record<string, unknown>[]): string {
  return [columns.join(','), ...rows.map((r) => columns.map((c) => csvField(r[c])).join(','))].join('\r\n') + '\r\n';
}

/** Saves text as a file through a temporary link (no server round trip). */
export function download(name: string, text: string | Blob, type = 'text/csv;charset=utf-8'): void {
  const blob = typeof text === 'string' ? new Blob([text], { type }) : text;
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}
