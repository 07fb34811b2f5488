// web/src/trained/reader-view.js: what the page shows of the reader trained on real text, read from
// the library alone. Against the shipped reader (its structure, never a trained value: the file may
// be retrained): the model view holds every layer × head of reader.attend in reading order, with
// reader.heads' entry and the pronoun head of reader.facts; the decoder's mask is causal; the
// predictions are reader.predict's; a share is written so that a small one never reads as 0.
import { describe, expect, it } from 'vitest';

import { init } from '../../dist/training-node.js';
import { captionParts, causalMask, headOf, isPronounHead, modelView, percent, piecesOf, predictions, shapeOf } from '../../web/src/trained/reader-view.js';

const lab = await init();
const readers = { en: await lab.loadReader({ language: 'en' }), 'zh-CN': await lab.loadReader({ language: 'zh-CN' }) };
const SENTENCES = { en: "The animal didn't cross the street because it was too tired", 'zh-CN': '动物没有过马路，因为它太累了' };

describe('the reader’s model view', () => {
  it.each([
    ['en', 'encoder'],
    ['en', 'decoder'],
    ['zh-CN', 'encoder'],
    ['zh-CN', 'decoder'],
  ])('%s %s: every layer × head of reader.attend, in reading order, with its measurement', (language, model) => {
    const reader = readers[language];
    const text = SENTENCES[language];
    const view = modelView(reader, text, model);
    const want = reader.attend(text, { model });
    const { layers, heads } = shapeOf(reader, model);
    expect([view.layers, view.heads]).toEqual([layers, heads]);
    expect(view.tokens).toEqual(want.tokens);
    expect(view.maps.map((m) => [m.layer, m.head])).toEqual(Array.from({ length: layers * heads }, (_, k) => [Math.floor(k / heads), k % heads]));
    for (const m of view.maps) {
      expect(m.matrix.data).toEqual(want.attention[m.layer][m.head].data);
      expect(m.entry).toBe(reader.heads.find((h) => h.model === model && h.layer === m.layer && h.head === m.head) ?? null);
      const p = reader.facts.pronounHead;
      expect(m.pronoun).toBe(Boolean(p) && p.model === model && p.layer === m.layer && p.head === m.head);
    }
    if (model === 'encoder' && reader.facts.pronounHead) expect(view.maps.filter((m) => m.pronoun)).toHaveLength(1);
    expect(view.truncated).toBeUndefined();
    if (model === 'decoder') expect(view.mask).toEqual(causalMask(view.tokens.length));
    else expect(view.mask).toBeUndefined();
  });

  it('the library’s truncated note for a text longer than the model reads', () => {
    const long = `${SENTENCES.en} `.repeat(20);
    const view = modelView(readers.en, long, 'encoder');
    expect(view.truncated).toEqual(readers.en.attend(long).truncated);
    expect(view.tokens).toHaveLength(readers.en.maxLength);
  });

  it('a head’s caption parts: counted from 1, reader.heads’ label in the page’s language, its score as a percent', () => {
    for (const language of ['en', 'zh-CN']) {
      const entry = headOf(readers[language], 'encoder', 0, 1);
      expect(captionParts(entry, 0, 1, language)).toEqual({ layer: 1, head: 2, label: entry.label[language], score: percent(entry.score) });
    }
    expect(captionParts(null, 2, 0, 'en')).toEqual({ layer: 3, head: 1, label: '', score: '' });
    expect(headOf(readers.en, 'encoder', 99, 0)).toBeNull();
    const p = readers.en.facts.pronounHead;
    if (p) expect([isPronounHead(readers.en, p.model, p.layer, p.head), isPronounHead(readers.en, p.model === 'encoder' ? 'decoder' : 'encoder', p.layer, p.head)]).toEqual([true, false]);
  });

  it('the predictions are reader.predict’s; the pieces are reader.tokenize’s', () => {
    const text = SENTENCES.en;
    const shown = predictions(readers.en, text);
    const want = readers.en.predict(text, { topK: 5 });
    expect(shown.map(({ token, id, probability }) => ({ token, id, probability }))).toEqual(want);
    expect(shown.map((p) => p.percent)).toEqual(want.map((p) => percent(p.probability)));
    expect(piecesOf(readers['zh-CN'], SENTENCES['zh-CN'])).toEqual(readers['zh-CN'].tokenize(SENTENCES['zh-CN']).tokens);
  });

  it('a causal mask sees each piece and those before it', () => {
    expect(Array.from(causalMask(3))).toEqual([1, 0, 0, 1, 1, 0, 1, 1, 1]);
  });

  it('a share as a percent: one decimal from 1 %, two significant digits below, never 0 for a share above 0', () => {
    expect([0.826, 1, 0.01, 0.00049, 0.0000123, 0].map(percent)).toEqual(['82.6', '100.0', '1.0', '0.049', '0.0012', '0.0']);
  });
});
