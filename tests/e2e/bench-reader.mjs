#!/usr/bin/env node
// Benchmark of the reader in Chromium (not a test: numbers only, no assertions). On the built demo
// site it imports the training entry (site/training.js, the build init() picks: SIMD here), loads
// the shipped reader and times, in the page's own clock, for a text of 128 pieces (the most either
// model reads) in each language:
//   load            lab.loadReader({ language }) the first time (fetch, parse, two models)
//   decoder trace   reader.attend(text, { model: 'decoder', trace: true }): one pass, every layer's and
//                   head's map, and every head's steps read (computed again: Q, K, V, scores, weights);
//                   and with one head's steps read (a head's are computed when first read)
//   encoder maps    reader.attend(text): every layer's attention of the encoder
//   predict         reader.predict(text): the next piece's top 5
// Warm: the median of ROUNDS calls after a first one. The budgets: the decoder's trace ≤ 30 ms, every
// layer's attention ≤ 100 ms.
// Usage: node tests/e2e/bench-reader.mjs [--runs 7]
import { join } from 'node:path';

import { ensureBuilt, launch, root, server } from './browser.js';

const at = process.argv.indexOf('--runs');
const ROUNDS = at > 0 ? Number(process.argv[at + 1]) : 7;
const TEXTS = {
  en: 'Call me Ishmael. Some years ago, never mind how long precisely, having little or no money in my purse, and nothing particular to interest me on shore, I thought I would sail about a little and see the watery part of the world. It is a way I have of driving off the spleen and regulating the circulation. Whenever I find myself growing grim about the mouth; whenever it is a damp, drizzly November in my soul; whenever I find myself involuntarily pausing before coffin warehouses.',
  'zh-CN': '床前明月光，疑是地上霜。举头望明月，低头思故乡。动物没有过马路，因为它太累了。那只小猫没有跳上那张桌子，是因为它太高了。白日依山尽，黄河入海流。欲穷千里目，更上一层楼。春眠不觉晓，处处闻啼鸟。夜来风雨声，花落知多少。小狗不敢进那个山洞，因为它太黑了。这条河很深，孩子们没有过去。',
};

ensureBuilt();
const b = await launch();
const s = await server(process.env.BENCH_SITE ?? join(root, 'site'));
const page = await b.browser.newPage();
await page.goto(`${s.url}/index.html`);

const results = await page.evaluate(
  async ({ texts, rounds }) => {
    const { init } = await import('./training.js');
    const lab = await init();
    const median = (xs) => [...xs].sort((a, c) => a - c)[Math.floor(xs.length / 2)];
    const time = (f) => {
      const t = performance.now();
      f();
      return performance.now() - t;
    };
    const warm = (f) => {
      const first = time(f);
      return { first, median: median(Array.from({ length: rounds }, () => time(f))) };
    };
    const out = { build: lab.build ?? lab.simd, rows: {} };
    for (const [language, text] of Object.entries(texts)) {
      const t = performance.now();
      const reader = await lab.loadReader({ language });
      const load = performance.now() - t;
      const pieces = reader.attend(text, { model: 'decoder' }).tokens.length;
      out.rows[language] = {
        load,
        pieces,
        truncated: Boolean(reader.attend(text, { model: 'decoder' }).truncated),
        // a head's steps are computed when read: every head's (the whole trace), and one head's (what the steps panel shows)
        decoderTrace: warm(() => reader.attend(text, { model: 'decoder', trace: true }).steps.forEach((layer) => layer.forEach((steps) => steps.length))),
        decoderOneHead: warm(() => reader.attend(text, { model: 'decoder', trace: true }).steps[3][0].length),
        encoderMaps: warm(() => reader.attend(text)),
        predict: warm(() => reader.predict(text)),
      };
      reader.dispose();
    }
    return out;
  },
  { texts: TEXTS, rounds: ROUNDS },
);

const ms = (x) => `${x.toFixed(1)} ms`;
console.log(`Chromium, the training entry's build (${results.build}); warm = median of ${ROUNDS} calls after the first`);
for (const [language, r] of Object.entries(results.rows))
  console.log(`${language}: ${r.pieces} pieces read${r.truncated ? ' (text truncated)' : ''}; load ${ms(r.load)}; decoder with every head's trace first ${ms(r.decoderTrace.first)}, warm ${ms(r.decoderTrace.median)}; with one head's, warm ${ms(r.decoderOneHead.median)}; encoder maps first ${ms(r.encoderMaps.first)}, warm ${ms(r.encoderMaps.median)}; predict warm ${ms(r.predict.median)}`);
await s.close();
await b.close();
process.exit(0);
