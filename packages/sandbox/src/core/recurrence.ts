/**
 * Occurrence dates of a scheduled transaction's series. A series is anchored on its `date_first`:
 *
 * - day-based frequencies add a fixed number of days (daily 1, weekly 7, everyOtherWeek 14,
 *   every4Weeks 28);
 * - month-based ones keep the day of `date_first`, clamped to shorter months, so a monthly series
 *   from Jan 31 runs Feb 28 (29 in leap years), Mar 31, Apr 30, and a yearly one from Feb 29 falls
 *   on Feb 28 in other years and on Feb 29 again in leap years;
 * - twiceAMonth falls on a day D and D + 15 of every month, D being the day of `date_first` when it
 *   is the 15th or earlier, else that day minus 15 (the later day is clamped to the month's end:
 *   a series from the 14th runs 14th, 28th (29th), 14th... in February).
 *
 * Stepping goes from one occurrence to the next, so a `date_next` that is no longer an occurrence
 * of the `date_first` series (the frequency changed but the date was kept) simply becomes the new
 * anchor instead of being pulled back onto the old pattern.
 */
import type { Frequency, IsoDate } from '@plans-gateway/rest-contract';
import { addDays, addMonths, daysInMonth, monthOf } from './dates.js';

const DAYS_APART: Partial<Record<Frequency, number>> = {
  daily: 1,
  weekly: 7,
  everyOtherWeek: 14,
  every4Weeks: 28,
};
const MONTHS_APART: Partial<Record<Frequency, number>> = {
  monthly: 1,
  everyOtherMonth: 2,
  every3Months: 3,
  every4Months: 4,
  twiceAYear: 6,
  yearly: 12,
  everyOtherYear: 24,
};
const TWICE_A_MONTH_GAP = 15;

function dayOf(date: IsoDate): number {
  return Number(date.slice(8, 10));
}

/** Private: `day` in `month` (`YYYY-MM-01`), clamped to the month's last day. */
function onDay(month: IsoDate, day: number): IsoDate {
  return `${month.slice(0, 8)}${String(Math.min(day, daysInMonth(month))).padStart(2, '0')}`;
}

/** Private: the earlier of the two twiceAMonth days of a series whose occurrence fell on `day`. */
function twiceAMonthBase(day: number): number {
  return day <= TWICE_A_MONTH_GAP ? day : day - TWICE_A_MONTH_GAP;
}

/**
 * The occurrence after `date` (itself an occurrence) of the series that started on `dateFirst`;
 * `null` for 'never', which occurs once.
 */
export function nextOccurrence(
  dateFirst: IsoDate,
  frequency: Frequency,
  date: IsoDate,
): IsoDate | null {
  if (frequency === 'never') return null;
  const days = DAYS_APART[frequency];
  if (days !== undefined) return addDays(date, days);
  const month = monthOf(date);
  const day = dayOf(date);
  if (frequency === 'twiceAMonth') {
    let base = twiceAMonthBase(dayOf(dateFirst));
    const onSeries = day === base || day === Math.min(base + TWICE_A_MONTH_GAP, daysInMonth(month));
    if (!onSeries) base = twiceAMonthBase(day);
    return day === base ? onDay(month, base + TWICE_A_MONTH_GAP) : onDay(addMonths(month, 1), base);
  }
  const months = MONTHS_APART[frequency] ?? 1;
  const anchorDay = dayOf(dateFirst);
  const onSeries = day === Math.min(anchorDay, daysInMonth(month));
  return onDay(addMonths(month, months), onSeries ? anchorDay : day);
}

/** The first occurrence strictly after `after` of a series starting on `dateFirst`; `null` when none is left. */
export function firstOccurrenceAfter(
  dateFirst: IsoDate,
  frequency: Frequency,
  after: IsoDate,
): IsoDate | null {
  let date: IsoDate | null = dateFirst;
  while (date !== null && date <= after) date = nextOccurrence(dateFirst, frequency, date);
  return date;
}
