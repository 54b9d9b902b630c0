/**
 * Calendar helpers on ISO strings (`YYYY-MM-DD`, always UTC). Dates compare correctly as strings,
 * so the store keeps them as strings and only converts for arithmetic.
 */
import type { IsoDate, IsoDateTime } from '@plans-gateway/rest-contract';

const MS_PER_DAY = 86_400_000;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** True for a real calendar date written `YYYY-MM-DD` (rejects 2024-02-30). */
export function isIsoDate(value: string): boolean {
  const match = ISO_DATE.exec(value);
  if (!match) return false;
  const [, y, m, d] = match;
  const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  return (
    date.getUTCFullYear() === Number(y) &&
    date.getUTCMonth() === Number(m) - 1 &&
    date.getUTCDate() === Number(d)
  );
}

/**
 * An ISO 8601 date-time: date, `T` (or a space, as RFC 3339 allows), hours and minutes, optional
 * seconds and fraction, optional zone (`Z`, `+HH:MM`, `+HHMM`).
 */
const ISO_DATE_TIME =
  /^(\d{4}-\d{2}-\d{2})[Tt ](?:[01]\d|2[0-3]):[0-5]\d(?::(?:[0-5]\d|60)(?:[.,]\d+)?)?(?:[Zz]|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?$/;

/**
 * The calendar date a client means: a `YYYY-MM-DD` date as it is, or the date part of an ISO 8601
 * date-time as written (the official SDK's `utils.getCurrentDateInISOFormat()` sends
 * `2026-11-22T16:44:30.591Z`). The offset is not applied: it says whose clock the writer read, and
 * the date on that clock is the one meant (the SDK even writes local time with a `Z`), so
 * `2026-11-22T23:30:00-05:00` is 22 November. `null` when the text is neither.
 */
export function calendarDateOf(value: string): IsoDate | null {
  if (isIsoDate(value)) return value;
  const date = ISO_DATE_TIME.exec(value)?.[1];
  return date !== undefined && isIsoDate(date) ? date : null;
}

export function isoDateOf(epochMs: number): IsoDate {
  return new Date(epochMs).toISOString().slice(0, 10);
}

export function isoDateTimeOf(epochMs: number): IsoDateTime {
  return new Date(epochMs).toISOString();
}

/** First day of the month containing `date`. */
export function monthOf(date: IsoDate): IsoDate {
  return `${date.slice(0, 7)}-01`;
}

export function toEpochDay(date: IsoDate): number {
  return Math.floor(Date.parse(`${date}T00:00:00Z`) / MS_PER_DAY);
}

/** The day of the week, 0 = Sunday to 6 = Saturday (1970-01-01 was a Thursday). */
export function weekdayOf(date: IsoDate): number {
  return (((toEpochDay(date) + 4) % 7) + 7) % 7;
}

export function fromEpochDay(day: number): IsoDate {
  return isoDateOf(day * MS_PER_DAY);
}

export function addDays(date: IsoDate, days: number): IsoDate {
  return fromEpochDay(toEpochDay(date) + days);
}

/** Adds months to a month key (`YYYY-MM-01`). */
export function addMonths(month: IsoDate, months: number): IsoDate {
  const year = Number(month.slice(0, 4));
  const index = Number(month.slice(5, 7)) - 1 + months;
  const y = year + Math.floor(index / 12);
  const m = ((index % 12) + 12) % 12;
  return `${String(y).padStart(4, '0')}-${String(m + 1).padStart(2, '0')}-01`;
}

/** Whole months from month `from` to month `to` (both `YYYY-MM-01`); negative when `to` is earlier. */
export function monthsBetween(from: IsoDate, to: IsoDate): number {
  return (
    (Number(to.slice(0, 4)) - Number(from.slice(0, 4))) * 12 +
    Number(to.slice(5, 7)) -
    Number(from.slice(5, 7))
  );
}

export function daysInMonth(month: IsoDate): number {
  return new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0)).getUTCDate();
}

/** `date` moved by whole months, keeping the day where the target month allows it. */
export function addMonthsToDate(date: IsoDate, months: number): IsoDate {
  const month = addMonths(monthOf(date), months);
  const day = Math.min(Number(date.slice(8, 10)), daysInMonth(month));
  return `${month.slice(0, 8)}${String(day).padStart(2, '0')}`;
}

/** `date` moved by whole years (29 February becomes 28 February in other years). */
export function addYears(date: IsoDate, years: number): IsoDate {
  return addMonthsToDate(date, years * 12);
}
