// The words of the grammar task: each meaning once, with its English and Chinese forms.
// Animals are "it"/"they" (它/它们) and take the classifier 只; people are "he"/"she" (他/她)
// and take 个. Chinese nouns do not inflect: number shows in the determiner (那只/那个 one, 那些 many).

export const NOUNS = Object.freeze([
  { en: ['cat', 'cats'], zh: '猫', animal: true },
  { en: ['dog', 'dogs'], zh: '狗', animal: true },
  { en: ['bird', 'birds'], zh: '鸟', animal: true },
  { en: ['rabbit', 'rabbits'], zh: '兔子', animal: true },
  { en: ['boy', 'boys'], zh: '男孩', gender: 'm' },
  { en: ['girl', 'girls'], zh: '女孩', gender: 'f' },
  { en: ['man', 'men'], zh: '男人', gender: 'm' },
  { en: ['woman', 'women'], zh: '女人', gender: 'f' },
]);

/** Transitive verbs in the past tense (English) and their Chinese forms (followed by 了 in a clause). */
export const TRANSITIVE = Object.freeze([
  { en: 'chased', zh: '追' },
  { en: 'saw', zh: '看见' },
  { en: 'helped', zh: '帮助' },
  { en: 'met', zh: '遇见' },
]);

export const INTRANSITIVE = Object.freeze([
  { en: 'ran', zh: '跑' },
  { en: 'slept', zh: '睡觉' },
  { en: 'jumped', zh: '跳' },
  { en: 'left', zh: '走' },
]);

export const ADJECTIVES = Object.freeze([
  { en: 'tired', zh: '累' },
  { en: 'happy', zh: '高兴' },
  { en: 'hungry', zh: '饿' },
  { en: 'small', zh: '小' },
]);

/** Function words (every word the sentences use besides the lists above). */
export const ENGLISH_WORDS = Object.freeze(['the', 'that', 'is', 'are', 'it', 'they', 'he', 'she', 'who', '.', '?']);
export const CHINESE_WORDS = Object.freeze(['那只', '那个', '那些', '的', '了', '都', '很', '它', '它们', '他', '她', '谁', '。', '？']);

/** Every word of both languages, English first: the grammar task's vocabulary after the specials. */
export function allWords() {
  const en = [...NOUNS.flatMap((n) => n.en), ...[TRANSITIVE, INTRANSITIVE, ADJECTIVES].flatMap((l) => l.map((w) => w.en)), ...ENGLISH_WORDS];
  const zh = [...NOUNS.map((n) => n.zh), ...[TRANSITIVE, INTRANSITIVE, ADJECTIVES].flatMap((l) => l.map((w) => w.zh)), ...CHINESE_WORDS];
  return [...new Set([...en, ...zh])];
}

/** A noun phrase of each noun, singular and plural: { noun, plural }. */
export const PHRASES = Object.freeze(NOUNS.flatMap((noun) => [false, true].map((plural) => ({ noun, plural }))));

/**
 * Ordered pairs of noun phrases a pronoun tells apart: two different animals of different number
 * (it/they), or two singular people of different gender (he/she).
 */
export function contrastingPairs() {
  const pairs = [];
  for (const a of PHRASES) {
    for (const b of PHRASES) {
      if (a.noun === b.noun) continue;
      if (a.noun.animal && b.noun.animal && a.plural !== b.plural) pairs.push([a, b]);
      if (a.noun.gender && b.noun.gender && !a.plural && !b.plural && a.noun.gender !== b.noun.gender) pairs.push([a, b]);
    }
  }
  return pairs;
}

/** Every combination of the lists: product([1, 2], ['a']) → [[1, 'a'], [2, 'a']]. */
export const product = (...lists) => lists.reduce((acc, list) => acc.flatMap((c) => list.map((x) => [...c, x])), [[]]);
