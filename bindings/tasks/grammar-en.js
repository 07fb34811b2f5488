// The English sentences of the grammar task, every one of them, as word lists with the positions the
// grammar determines (the only positions where one word alone is right):
//   agreement  "the cats that the dog chased are tired ."  (is/are agrees with the head noun, not with
//              the nearer noun inside the relative clause): the verb is determined
//   reference  "the dog chased the cats . they ran . who ran ? the cats ."  (the two nouns differ in
//              number (it/they) or gender (he/she), so the pronoun names one): the answer noun is determined
import { ADJECTIVES, INTRANSITIVE, PHRASES, TRANSITIVE, contrastingPairs, product } from './grammar-lexicon.js';

const word = (x) => x.noun.en[x.plural ? 1 : 0];
const pronoun = (x) => (x.noun.animal ? (x.plural ? 'they' : 'it') : x.noun.gender === 'm' ? 'he' : 'she');

function agreement() {
  const heads = product(PHRASES, PHRASES, TRANSITIVE, ADJECTIVES).filter(([head, inner]) => head.noun !== inner.noun);
  return heads.map(([head, inner, verb, adjective]) => ({
    template: 'agreement',
    words: ['the', word(head), 'that', 'the', word(inner), verb.en, head.plural ? 'are' : 'is', adjective.en, '.'],
    determined: [6],
  }));
}

function reference() {
  return product(contrastingPairs(), TRANSITIVE, [0, 1], INTRANSITIVE).map(([[a, b], verb, which, act]) => {
    const referent = which === 0 ? a : b;
    const words = ['the', word(a), verb.en, 'the', word(b), '.', pronoun(referent), act.en, '.', 'who', act.en, '?', 'the', word(referent), '.'];
    return { template: 'reference', words, determined: [13] };
  });
}

/** Every English sentence: [{ template, words, determined (indices into words) }]. */
export const englishSentences = () => [...agreement(), ...reference()];
