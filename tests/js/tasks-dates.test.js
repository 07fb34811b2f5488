// lab.tasks.dates against a parser written here (not the task's formatter read backwards): every
// English and Chinese form of every date reads back to its ISO string, weekdays agree with JS Date,
// and the train/validation split never shares a date.
import { describe, expect, it } from 'vitest';

import { TASKS } from '../../bindings/tasks/index.js';

const { dates } = TASKS;

const MONTHS = 'january february march april may june july august september october november december'.split(' ');
const DAYS = 'sunday monday tuesday wednesday thursday friday saturday'.split(' ');
const ZH_DIGITS = '〇一二三四五六七八九';
const ZH_WEEK = '日一二三四五六';

/** Chinese 1…31: 一, 十, 十二, 二十, 三十一. */
function zhNumber(text) {
  if (/^\d+$/.test(text)) return Number(text);
  const [tens, ones] = text.includes('十') ? text.split('十') : ['', text];
  const t = text.includes('十') ? (tens === '' ? 1 : ZH_DIGITS.indexOf(tens)) : 0;
  return t * 10 + (ones === '' ? 0 : ZH_DIGITS.indexOf(ones));
}
const zhYear = (text) => (/^\d{4}$/.test(text) ? Number(text) : Number(Array.from(text, (c) => ZH_DIGITS.indexOf(c)).join('')));

/** English suffixes: 1st 2nd 3rd 4th … 11th 12th 13th … 21st 22nd 23rd … 31st. */
const suffix = (d) => (d >= 11 && d <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' }[d % 10] ?? 'th'));

function parseChinese(text) {
  const dotted = /^(\d{4})\.(\d{1,2})\.(\d{1,2})$/.exec(text);
  if (dotted) return { year: +dotted[1], month: +dotted[2], day: +dotted[3], weekday: null };
  const m = /^(\d{4}|[〇一二三四五六七八九]{4})年(\d{1,2}|[一二三四五六七八九十]{1,3})月(\d{1,2}|[一二三四五六七八九十]{1,3})[日号](?:星期([日一二三四五六])| 周([日一二三四五六]))?$/.exec(text);
  if (!m) throw new Error(`not a Chinese date: ${text}`);
  const week = m[4] ?? m[5];
  return { year: zhYear(m[1]), month: zhNumber(m[2]), day: zhNumber(m[3]), weekday: week ? ZH_WEEK.indexOf(week) : null };
}

/** Any English form: a weekday (full or 3 letters), a month name (full, 3 letters, "Dec."), a day, a year; or M/D/YYYY. */
function parseEnglish(text) {
  const slash = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(text);
  if (slash) return { year: +slash[3], month: +slash[1], day: +slash[2], weekday: null };
  const words = text.replace(/,/g, ' ').split(/\s+/).filter((w) => w && w !== 'the' && w !== 'of');
  let weekday = null;
  let month = null;
  let day = null;
  let year = null;
  for (const w of words) {
    const lower = w.toLowerCase().replace(/\.$/, '');
    const wd = DAYS.findIndex((d) => d === lower || d.slice(0, 3) === lower);
    const mo = MONTHS.findIndex((name) => name === lower || (name.slice(0, 3) === lower && (!w.endsWith('.') || name.length > 3)));
    const ord = /^(\d{1,2})(st|nd|rd|th)?$/.exec(w);
    if (wd >= 0 && weekday === null && month === null) weekday = wd;
    else if (mo >= 0) month = mo + 1;
    else if (/^\d{4}$/.test(w)) year = Number(w);
    else if (ord && (!ord[2] || ord[2] === suffix(Number(ord[1])))) day = Number(ord[1]);
    else throw new Error(`unexpected word ${w} in ${text}`);
  }
  return { year, month, day, weekday };
}

const parse = (text) => (/[年.]/.test(text) && !/[A-Za-z]/.test(text) ? parseChinese(text) : parseEnglish(text));
const iso = ({ year, month, day }) => `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
const utc = (isoText) => new Date(`${isoText}T00:00:00Z`);

/** Every date of the range, as ISO strings (from JS Date, not from the task). */
function allDates() {
  const out = [];
  for (let t = Date.UTC(1950, 0, 1); t <= Date.UTC(2049, 11, 31); t += 86400000) out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}
const ALL = allDates();
/** Every fifth date (5 and 7 are coprime: each weekday meets each month and form), and the range's ends. */
const SOME = [...ALL.filter((_, i) => i % 5 === 0), ALL.at(-1)];

describe('tasks.dates', () => {
  it('writes 2026-12-01 in the forms the issue names', () => {
    const forms = Array.from({ length: dates.formCount }, (_, k) => dates.format('2026-12-01', k));
    for (const text of ['December 1, 2026', '1 Dec 2026', '12/01/2026', 'Tuesday, the 1st of December 2026', 'Dec. 1st, 2026', '2026 December 1', '2026年12月1日', '二〇二六年十二月一日', '2026年12月1日星期二']) {
      expect(forms).toContain(text);
    }
    expect(new Set(forms).size).toBe(dates.formCount);
    expect(dates.format('2023-05-02', 4)).toBe('May 2nd, 2023'); // no stop after a full name
    expect(dates.format('2031-11-12', 3)).toBe('Wednesday, the 12th of November 2031');
    expect(dates.format('2049-12-31', 15)).toBe('二〇四九年十二月三十一日星期五');
  });

  it('every form of every date reads back to its ISO string, weekday included', () => {
    let weekdays = 0;
    for (const d of SOME) {
      const day = utc(d).getUTCDay();
      for (let k = 0; k < dates.formCount; k++) {
        const text = dates.format(d, k);
        const p = parse(text);
        if (iso(p) !== d) throw new Error(`${text} reads as ${iso(p)}, not ${d}`);
        if (p.weekday !== null) {
          weekdays++;
          if (p.weekday !== day) throw new Error(`${text}: weekday ${p.weekday}, JS Date says ${day}`);
        }
      }
    }
    expect(weekdays).toBe(SOME.length * 6); // six forms name the weekday (three English, three Chinese)
  });

  it('covers every character of every form and of the ISO output, and maxSourceLength is the longest source', () => {
    let longest = 0;
    for (const d of ALL) {
      if (dates.encode(d).includes(dates.unk)) throw new Error(`unk in ${d}`);
      for (let k = 0; k < dates.formCount; k++) {
        const ids = dates.encode(dates.format(d, k));
        if (ids.includes(dates.unk)) throw new Error(`unk in ${dates.format(d, k)}`);
        longest = Math.max(longest, ids.length);
      }
    }
    expect(dates.maxSourceLength).toBe(longest);
    expect(dates.maxLength).toBe(11);
    expect(Array.from(dates.encode('1 Dez 2026 ü'))).toEqual([...dates.encode('1 De'), dates.unk, ...dates.encode(' 2026 '), dates.unk]);
  });

  it('batches: every source reads back to its target', () => {
    for (const split of ['train', 'validation']) {
      const b = dates.batch({ seed: 11, size: 500, split });
      for (const { source, target } of b.examples) {
        expect(iso(parse(source))).toBe(target);
        expect(dates.check(source, target)).toBe(true);
      }
    }
    expect(dates.check('December 1, 2026', '2026-12-02')).toBe(false);
    expect(dates.check('Monday, December 1, 2026', '2026-12-01')).toBe(false); // wrong weekday: no form writes it
    expect(dates.check('2026年12月1日', '2026-02-30')).toBe(false);
  });

  it('splits by date: the sets are disjoint in every form, about one date in ten is for validation', () => {
    const validation = new Set(ALL.filter((d) => dates.splitOf(d) === 'validation'));
    expect(validation.size / ALL.length).toBeGreaterThan(0.08);
    expect(validation.size / ALL.length).toBeLessThan(0.12);
    const seen = { train: new Set(), validation: new Set() };
    for (const split of ['train', 'validation']) {
      for (let seed = 1; seed <= 5; seed++) for (const e of dates.batch({ seed, size: 1000, split }).examples) seen[split].add(e.target);
    }
    for (const d of seen.train) expect(validation.has(d)).toBe(false);
    for (const d of seen.validation) expect(validation.has(d)).toBe(true);
    expect(seen.train.size).toBeGreaterThan(3000);
    expect(seen.validation.size).toBeGreaterThan(2000);
  });

  it('draws English and Chinese forms about equally, and every form appears', () => {
    const b = dates.batch({ seed: 3, size: 4000 });
    const chinese = b.examples.filter((e) => /[年.]/.test(e.source) && !/[A-Za-z]/.test(e.source)).length;
    expect(chinese / b.size).toBeGreaterThan(0.45);
    expect(chinese / b.size).toBeLessThan(0.55);
    const forms = new Set(b.examples.map((e) => Array.from({ length: dates.formCount }, (_, k) => dates.format(e.target, k)).indexOf(e.source)));
    expect([...forms].sort((x, y) => x - y)).toEqual(Array.from({ length: dates.formCount }, (_, k) => k));
  });

  it('refuses a date outside the range or a bad form', () => {
    expect(() => dates.format('1949-12-31', 0)).toThrow(/1950…2049/);
    expect(() => dates.format('2026-02-29', 0)).toThrow(/not an ISO date/);
    expect(() => dates.format('2026-12-01', dates.formCount)).toThrow(/form must be an integer in 0…19, got 20/);
  });
});
