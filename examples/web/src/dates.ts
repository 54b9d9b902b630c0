/**
 * Today as the person using the page sees it: the date in the browser's time zone. An ISO date
 * taken from `toISOString()` is the UTC date, a day off for much of the day west or east of UTC.
 */
export function localToday(now: Date = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

const DAY = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', timeZone: 'UTC' });

/**
 * A plan's date (`YYYY-MM-DD`, a calendar day, no time zone) as a short label. Read as UTC
 * midnight and formatted in UTC, so no time zone moves it to the day before.
 */
export function shortDate(isoDate: string): string {
  return DAY.format(new Date(`${isoDate}T00:00:00Z`));
}
