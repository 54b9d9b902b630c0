/** Calendar helpers on ISO dates (`YYYY-MM-DD`, UTC), for building requests and expectations. */

/** 2025-06-15T12:00:00Z: mid-month, so "this month" has days on both sides of today. */
export const TEST_NOW = Date.UTC(2025, 5, 15, 12, 0, 0);

export const DAY_MS = 86_400_000;

export function isoDate(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

export function addDays(date: string, days: number): string {
  return isoDate(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS);
}

/** First day of the month of `date`. */
export function monthOf(date: string): string {
  return `${date.slice(0, 7)}-01`;
}

/** First day of the month `months` after the month of `date` (negative goes back). */
export function addMonths(date: string, months: number): string {
  const year = Number(date.slice(0, 4));
  const month = Number(date.slice(5, 7)) - 1 + months;
  return isoDate(Date.UTC(year + Math.floor(month / 12), ((month % 12) + 12) % 12, 1));
}
