// One CSV cell and line, for every export (referrals, rewards, events, payouts, the ledger, the
// audit log). Values that a spreadsheet would run as a formula (=, +, -, @, tab, CR) are prefixed
// with a quote (OWASP CSV injection); a negative amount stays a number.
type Cell = string | number | boolean | null | undefined | Date;

export function csvCell(v: Cell): string {
  if (v === null || v === undefined) return "";
  let s = v instanceof Date ? v.toISOString() : String(v);
  // A negative amount ("-0.01", the ledger's debits) is a number to a spreadsheet, not a formula.
  if (typeof v === "string" && /^[=+\-@\t\r]/.test(s) && !/^-\d+(\.\d+)?$/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export const csvLine = (cells: Cell[]) => `${cells.map(csvCell).join(",")}\r\n`;
