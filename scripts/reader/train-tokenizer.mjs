// Trains the reader's tokenizer on the text its models learn from, and writes
// bindings/reader/vocabulary.json: byte-fallback BPE shared by English and Chinese.
//   - the specials, then the 256 byte pieces (for any character not below: no unknown id);
//   - single characters: HAN_PIECES Han characters (a fixed list of modern ones the classical
//     corpus rarely has, then the most frequent), and every other character seen MIN_COUNT times
//     or more, with printable ASCII and the line break always;
//   - merges, learnt inside the units of bindings/reader/pretokenize.js (so only within English
//     words, numbers and runs of punctuation: a Han character is never merged), until the
//     vocabulary has SIZE pieces.
// The text: the corpora's training split (build/reader/{en,zh}.train.txt, scripts/reader/corpus.mjs)
// and the generated sentences' (generated-{en,zh}-train.jsonl, scripts/reader/sentences.mjs at its
// defaults). Without the second, "The animal didn't cross the street" read as "T he ▁an im al
// ▁did n 't ▁c ross …": the speeches and Moby-Dick spend the merges on other words.
// Deterministic: equal counts are broken by the pieces' UTF-8 bytes (left piece, then right), and
// nothing depends on time or on the order of a Map other than the input's.
//
//   node scripts/reader/train-tokenizer.mjs [--in=build/reader] [--generated=build/reader | none]
//     [--size=4096] [--han=2000] [--out=bindings/reader/vocabulary.json]
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { forEachUnit } from '../../bindings/reader/pretokenize.js';
import { createTokenizer, BYTE_PIECES } from '../../bindings/reader/tokenizer.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const SPECIALS = Object.freeze(['<pad>', '<bos>', '<eos>', '<mask>']);
export const SIZE = 4096;
export const HAN_PIECES = 2000;
export const MIN_COUNT = 25;
// Modern characters a reader types ("它太累了", "他们在哪里吗", "狗跳过了栅栏") that classical
// verse has too rarely to rank among its 2,000 most frequent: kept as pieces so such sentences need
// no bytes (function words, pronouns, measure words, and everyday animals, things, places, adjectives
// and verbs such as the reader's example sentences use). Those missing from the most frequent take
// the places of the least frequent.
export const MODERN_HAN = Array.from(new Set(
  '的了是我你他她它们这那哪个么什吗呢吧啊呀哦嗯没很都也就还在有和跟把被让给对从向往到说话做事东西怎样' +
    '为因所以但如果可能会要想知道看见听觉得谁多少几点现已经再又才刚正着过来去上下里外前后左右边面头家' +
    '人孩子爸妈朋友学生老师吃喝睡走跑买卖开关用找等帮请谢起喜欢爱累饿冷热快慢新旧好坏真假错动物马路太' +
    '狗猫狐狸驴猴熊猪鼠鸭鸡牛羊兔鸟鱼虎狼蛇象鹿桌椅柜箱床门窗灯伞钥匙杯碗盘筷锅瓶包书笔纸电脑手机车站' +
    '街桥河湖海山城村店市场校医院厨房仓库公园隧道坑栅栏篱笆胖瘦笨聪宽窄深浅高矮长短重轻脏干净忙闲吵静' +
    '陡硬软跳爬躲站抖挤堵推拉拿放送借读写唱玩哭笑坐躺洗块件只条张辆本双今天明昨早晚年月星期分钟红黄蓝绿白黑',
));

const isHan = (c) => /\p{Script=Han}/u.test(c);
const utf8Bytes = (s) => Buffer.from(s, 'utf8').toString('latin1'); // compares in UTF-8 byte order
const byteOrder = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

/** Characters of the vocabulary, in code point order. */
function alphabetOf(texts, { hanPieces, minCount }) {
  const counts = new Map();
  for (const text of texts) for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
  const byFrequency = (a, b) => b[1] - a[1] || a[0].codePointAt(0) - b[0].codePointAt(0);
  const han = [...counts].filter(([c]) => isHan(c)).sort(byFrequency).map(([c]) => c);
  const chosen = new Set(MODERN_HAN.slice(0, hanPieces));
  for (const c of han) {
    if (chosen.size >= hanPieces) break;
    chosen.add(c);
  }
  // (a character NFC would rewrite cannot occur in NFC text; one in a text given unnormalised is left to bytes)
  for (const [c, n] of counts) if (!isHan(c) && n >= minCount && c === c.normalize('NFC')) chosen.add(c);
  for (let cp = 0x20; cp < 0x7f; cp++) chosen.add(String.fromCharCode(cp));
  chosen.add('\n');
  // only whole code points (a lone surrogate is never a piece: it is written as U+FFFD's bytes)
  return [...chosen].filter((c) => !/^[\ud800-\udfff]$/.test(c)).sort((a, b) => a.codePointAt(0) - b.codePointAt(0));
}

/** Distinct units with their counts (Han units are single pieces already and left out). */
function unitCounts(texts) {
  const counts = new Map();
  for (const text of texts) {
    forEachUnit(text, (start, end) => {
      const unit = text.slice(start, end);
      if (end - start <= 2 && isHan(unit)) return;
      counts.set(unit, (counts.get(unit) ?? 0) + 1);
    });
  }
  return counts;
}

/**
 * The vocabulary (vocabulary.json's object) learnt from `texts` (NFC strings). `size` is the total
 * number of pieces; fewer when the texts run out of pairs.
 */
export function trainTokenizer(texts, { size = SIZE, hanPieces = HAN_PIECES, minCount = MIN_COUNT, log = () => {} } = {}) {
  const alphabet = alphabetOf(texts, { hanPieces, minCount });
  const charBase = SPECIALS.length + BYTE_PIECES;
  const charId = new Map(alphabet.map((c, i) => [c, charBase + i]));
  const isByte = (id) => id < charBase;
  const bytesOf = alphabet.map(utf8Bytes); // by id - charBase; merges are appended
  const bytesAt = (id) => bytesOf[id - charBase];

  // words: each distinct unit as ids (bytes for characters outside the alphabet), with its count
  const counts = unitCounts(texts);
  const words = [];
  const freq = [];
  for (const [unit, n] of counts) {
    const ids = [];
    for (const c of unit) {
      const id = charId.get(c);
      if (id !== undefined) ids.push(id);
      else for (const b of Buffer.from(c, 'utf8')) ids.push(SPECIALS.length + b);
    }
    if (ids.length > 1) {
      words.push(ids);
      freq.push(n);
    }
  }
  log(`${alphabet.length} characters, ${counts.size} distinct units, ${words.length} to merge in`);

  // pair → count, and pair → words holding it (some may no longer hold it: checked when merging)
  const KEY = 1 << 16;
  const pairCount = new Map();
  const pairWords = new Map();
  const addPairs = (w, sign) => {
    const ids = words[w];
    for (let j = 0; j + 1 < ids.length; j++) {
      if (isByte(ids[j]) || isByte(ids[j + 1])) continue;
      const key = ids[j] * KEY + ids[j + 1];
      const n = (pairCount.get(key) ?? 0) + sign * freq[w];
      if (n) pairCount.set(key, n);
      else pairCount.delete(key);
      if (sign > 0) {
        let set = pairWords.get(key);
        if (!set) pairWords.set(key, (set = new Set()));
        set.add(w);
      }
    }
  };
  for (let w = 0; w < words.length; w++) addPairs(w, +1);

  const merges = [];
  const target = size - charBase - alphabet.length;
  while (merges.length / 2 < target && pairCount.size) {
    let bestKey = -1;
    let bestCount = 0;
    for (const [key, n] of pairCount) {
      if (n < bestCount) continue;
      if (n === bestCount) {
        const [a, b] = [Math.floor(key / KEY), key % KEY];
        const [x, y] = [Math.floor(bestKey / KEY), bestKey % KEY];
        const order = byteOrder(bytesAt(a), bytesAt(x)) || byteOrder(bytesAt(b), bytesAt(y));
        if (order >= 0) continue;
      }
      [bestKey, bestCount] = [key, n];
    }
    const [a, b] = [Math.floor(bestKey / KEY), bestKey % KEY];
    const id = charBase + alphabet.length + merges.length / 2;
    merges.push(a, b);
    bytesOf.push(bytesAt(a) + bytesAt(b));
    for (const w of pairWords.get(bestKey)) {
      const ids = words[w];
      let found = false;
      for (let j = 0; j + 1 < ids.length && !found; j++) found = ids[j] === a && ids[j + 1] === b;
      if (!found) continue;
      addPairs(w, -1);
      const next = [];
      for (let j = 0; j < ids.length; j++) {
        if (j + 1 < ids.length && ids[j] === a && ids[j + 1] === b) {
          next.push(id);
          j++;
        } else next.push(ids[j]);
      }
      words[w] = next;
      addPairs(w, +1);
    }
    pairWords.delete(bestKey);
  }
  return { format: 'attention-lab byte-fallback BPE 1', specials: [...SPECIALS], chars: alphabet.join(''), merges };
}

/**
 * Pieces per whitespace-separated word and per character (code point, spaces not counted) of a
 * text, and the share of byte pieces; each line is tokenized alone, so line breaks are not counted.
 */
export function measure(tokenizer, text) {
  let pieces = 0;
  let bytes = 0;
  for (const line of text.split('\n')) {
    const { ids } = tokenizer.tokenize(line);
    pieces += ids.length;
    for (const id of ids) if (tokenizer.isByte(id)) bytes++;
  }
  const words = text.split(/\s+/u).filter(Boolean).length;
  const chars = Array.from(text.replace(/\s+/gu, '')).length;
  return { pieces, words, chars, perWord: pieces / words, perChar: pieces / chars, byteShare: bytes / pieces };
}

/** vocabulary.json's text: one line per field, merges on a few long lines (compact, still diffable). */
export function serialise(vocabulary) {
  const lines = [];
  for (let i = 0; i < vocabulary.merges.length; i += 32) lines.push(vocabulary.merges.slice(i, i + 32).join(','));
  return (
    `{"format":${JSON.stringify(vocabulary.format)},\n"specials":${JSON.stringify(vocabulary.specials)},\n` +
    `"chars":${JSON.stringify(vocabulary.chars)},\n"merges":[\n${lines.join(',\n')}\n]}\n`
  );
}

/** The `text` of each line of a generated-*.jsonl file, a line each. */
const generatedText = (file) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line).text)
    .join('\n');

async function main() {
  const arg = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
  const input = resolve(ROOT, arg('in', 'build/reader'));
  const generated = arg('generated', 'build/reader');
  const output = resolve(ROOT, arg('out', 'bindings/reader/vocabulary.json'));
  const size = Number(arg('size', SIZE));
  const hanPieces = Number(arg('han', HAN_PIECES));
  const read = (language, split) => readFileSync(join(input, `${language}.${split}.txt`), 'utf8');
  const sentences = (language, split) => {
    const file = resolve(ROOT, generated, `generated-${language}-${split}.jsonl`);
    if (!existsSync(file)) {
      console.error(`train-tokenizer: ${file} is missing: run node scripts/reader/sentences.mjs first, or pass --generated=none`);
      process.exit(1);
    }
    return generatedText(file);
  };
  const started = performance.now();
  const texts = [read('en', 'train'), read('zh', 'train')];
  if (generated !== 'none') texts.push(sentences('en', 'train'), sentences('zh', 'train'));
  const vocabulary = trainTokenizer(texts, { size, hanPieces, log: (s) => console.log(`train-tokenizer: ${s}`) });
  const json = serialise(vocabulary);
  writeFileSync(output, json);
  const seconds = (performance.now() - started) / 1000;
  const tokenizer = createTokenizer(JSON.parse(json));
  const han = Array.from(vocabulary.chars).filter(isHan).length;
  const other = Array.from(vocabulary.chars).length - han;
  console.log(
    `train-tokenizer: ${tokenizer.size} pieces = ${SPECIALS.length} specials + ${BYTE_PIECES} bytes + ${han} Han + ${other} other characters + ${vocabulary.merges.length / 2} merges`,
  );
  console.log(`train-tokenizer: wrote ${output}, ${json.length} bytes, ${gzipSync(json, { level: 9 }).length} gzipped, in ${seconds.toFixed(1)} s`);
  const report = (name, en, zh) => {
    console.log(`${name} en: ${en.pieces} pieces, ${en.perWord.toFixed(3)} per word, ${en.perChar.toFixed(3)} per character, ${(100 * en.byteShare).toFixed(3)} % bytes`);
    console.log(`${name} zh: ${zh.pieces} pieces, ${zh.perChar.toFixed(3)} per character, ${(100 * zh.byteShare).toFixed(3)} % bytes`);
  };
  report('corpora, validation', measure(tokenizer, read('en', 'validation')), measure(tokenizer, read('zh', 'validation')));
  if (generated !== 'none') report('generated, dev', measure(tokenizer, sentences('en', 'dev')), measure(tokenizer, sentences('zh', 'dev')));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
