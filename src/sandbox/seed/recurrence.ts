/** Occurrence dates of a scheduled transaction, used to place seeded schedules around today. */
import type { Frequency, IsoDate } from '../../upstream/types.js';
import { addDays, addMonthsToDate } from '../dates.js';

/** The occurrence after `date` for a frequency; `null` for 'never' (a one-off). */
export function nextOccurrence(date: IsoDate, frequency: Frequency): IsoDate | null {
  switch (frequency) {
    case 'never':
      return null;
    case 'daily':
      return addDays(date, 1);
    case 'weekly':
      return addDays(date, 7);
    case 'everyOtherWeek':
      return addDays(date, 14);
    case 'every4Weeks':
      return addDays(date, 28);
    case 'twiceAMonth': {
      // Twice a month: on the first day of the series and fifteen days later.
      const day = Number(date.slice(8, 10));
      return day <= 15 ? addDays(date, 15) : addMonthsToDate(addDays(date, -15), 1);
    }
    case 'monthly':
      return addMonthsToDate(date, 1);
    case 'everyOtherMonth':
      return addMonthsToDate(date, 2);
    case 'every3Months':
      return addMonthsToDate(date, 3);
    case 'every4Months':
      return addMonthsToDate(date, 4);
    case 'twiceAYear':
      return addMonthsToDate(date, 6);
    case 'yearly':
      return addMonthsToDate(date, 12);
    case 'everyOtherYear':
      return addMonthsToDate(date, 24);
  }
}

/** The first occurrence strictly after `today` of a series starting on `dateFirst`. */
export function firstOccurrenceAfter(dateFirst: IsoDate, frequency: Frequency, today: IsoDate): IsoDate | null {
  let date: IsoDate | null = dateFirst;
  while (date !== null && date <= today) date = nextOccurrence(date, frequency);
  return date;
}
