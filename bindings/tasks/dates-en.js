// The English written forms of a date (d = { year, month, day, weekday }). Each form is one
// function; the US form 12/01/2026 puts the month first.
import { MONTHS, WEEKDAYS, ordinal, two } from './dates-calendar.js';

const month = (d) => MONTHS[d.month - 1];
const short = (d) => month(d).slice(0, 3);
// "Dec." but "May" (a full name needs no stop)
const dotted = (d) => (month(d).length > 3 ? `${short(d)}.` : short(d));
const weekday = (d) => WEEKDAYS[d.weekday];

export const ENGLISH_FORMS = Object.freeze([
  (d) => `${month(d)} ${d.day}, ${d.year}`, // December 1, 2026
  (d) => `${d.day} ${short(d)} ${d.year}`, // 1 Dec 2026
  (d) => `${two(d.month)}/${two(d.day)}/${d.year}`, // 12/01/2026
  (d) => `${weekday(d)}, the ${ordinal(d.day)} of ${month(d)} ${d.year}`, // Tuesday, the 1st of December 2026
  (d) => `${dotted(d)} ${ordinal(d.day)}, ${d.year}`, // Dec. 1st, 2026
  (d) => `${d.year} ${month(d)} ${d.day}`, // 2026 December 1
  (d) => `${d.day} ${month(d)} ${d.year}`, // 1 December 2026
  (d) => `${weekday(d)}, ${month(d)} ${d.day}, ${d.year}`, // Tuesday, December 1, 2026
  (d) => `${short(d)} ${d.day}, ${d.year}`, // Dec 1, 2026
  (d) => `the ${ordinal(d.day)} of ${month(d)}, ${d.year}`, // the 1st of December, 2026
  (d) => `${weekday(d).slice(0, 3)} ${d.day} ${short(d)} ${d.year}`, // Tue 1 Dec 2026
  (d) => `${d.month}/${d.day}/${d.year}`, // 12/1/2026
]);
