// The Chinese written forms of a date: Arabic digits (2026年12月1日), Chinese numerals
// (二〇二六年十二月一日: the year digit by digit, month and day as numbers), with the weekday
// (星期二, 周二) and the colloquial 号 for 日.
import { two } from './dates-calendar.js';

const DIGITS = ['〇', '一', '二', '三', '四', '五', '六', '七', '八', '九'];
const WEEKDAYS = ['日', '一', '二', '三', '四', '五', '六']; // 星期日 … 星期六

/** 1 → 一, 10 → 十, 12 → 十二, 20 → 二十, 31 → 三十一 (numbers 1…31). */
export function chineseNumber(n) {
  const tens = Math.floor(n / 10);
  const ones = n % 10;
  const head = tens === 0 ? '' : tens === 1 ? '十' : `${DIGITS[tens]}十`;
  return head + (ones === 0 && tens > 0 ? '' : DIGITS[ones]);
}

/** 2026 → 二〇二六 (a year is read digit by digit). */
export const chineseYear = (year) => Array.from(String(year), (c) => DIGITS[Number(c)]).join('');

const arabic = (d) => `${d.year}年${d.month}月${d.day}日`;
const numerals = (d) => `${chineseYear(d.year)}年${chineseNumber(d.month)}月${chineseNumber(d.day)}日`;
const xingqi = (d) => `星期${WEEKDAYS[d.weekday]}`;

export const CHINESE_FORMS = Object.freeze([
  arabic, // 2026年12月1日
  numerals, // 二〇二六年十二月一日
  (d) => `${arabic(d)}${xingqi(d)}`, // 2026年12月1日星期二
  (d) => `${numerals(d)}${xingqi(d)}`, // 二〇二六年十二月一日星期二
  (d) => `${d.year}年${d.month}月${d.day}号`, // 2026年12月1号
  (d) => `${d.year}年${two(d.month)}月${two(d.day)}日`, // 2026年12月01日
  (d) => `${arabic(d)} 周${WEEKDAYS[d.weekday]}`, // 2026年12月1日 周二
  (d) => `${d.year}.${d.month}.${d.day}`, // 2026.12.1 (the dotted form common in China)
]);
