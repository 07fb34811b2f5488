// The Gregorian calendar the dates task needs: a day number ↔ (year, month, day) and the weekday,
// computed (Howard Hinnant's days_from_civil / civil_from_days), never looked up.

export const FIRST_YEAR = 1950;
export const LAST_YEAR = 2049;

/** Days since 1970-01-01 of a proleptic Gregorian date (month 1…12). */
export function daysFromCivil(year, month, day) {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** The date of a day number (days since 1970-01-01). */
export function civilFromDays(days) {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** 28 … 31. */
export const daysInMonth = (year, month) => daysFromCivil(month === 12 ? year + 1 : year, (month % 12) + 1, 1) - daysFromCivil(year, month, 1);

/** 0 = Sunday … 6 = Saturday (1970-01-01 was a Thursday). */
export const weekdayOf = (days) => (((days + 4) % 7) + 7) % 7;

export const FIRST_DAY = daysFromCivil(FIRST_YEAR, 1, 1);
export const DAY_COUNT = daysFromCivil(LAST_YEAR + 1, 1, 1) - FIRST_DAY;

/** The date `index` days after FIRST_YEAR-01-01: { year, month, day, weekday, iso }. */
export function dateAt(index) {
  const days = FIRST_DAY + index;
  const { year, month, day } = civilFromDays(days);
  return { year, month, day, weekday: weekdayOf(days), iso: isoDate(year, month, day) };
}

const two = (n) => String(n).padStart(2, '0');
export const isoDate = (year, month, day) => `${year}-${two(month)}-${two(day)}`;
export { two };

export const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
export const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** 1st, 2nd, 3rd, 4th … 11th, 12th, 13th … 21st, 22nd, 23rd … 31st. */
export function ordinal(n) {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const suffix = teen ? 'th' : ['th', 'st', 'nd', 'rd'][n % 10] ?? 'th';
  return `${n}${suffix}`;
}
