// The English words of the generated sentences (scripts/reader/sentences.mjs).
// A pronoun pair puts an animate agent and a place or thing in one frame; the adjective after "too"
// is a property of one of them only, so it alone decides what "it" (or "they") refers to. Each
// frame lists the adjectives that make sense with it: an agent's (tired, scared …) and, for each
// object it takes, the object's (a street is wide, busy or crowded). An adjective is never on both
// lists, and none is a property the other noun could plausibly have in that frame ("old" is left
// out: a bridge can be too old to cross; "busy" is never said of people in a frame with a street).

/** Agents: singular animals are "it"; people appear only in plural frames ("they"). */
export const AGENTS = Object.freeze([
  { id: 'animal', sg: 'animal', pl: 'animals' },
  { id: 'dog', sg: 'dog', pl: 'dogs', pet: true },
  { id: 'cat', sg: 'cat', pl: 'cats', pet: true },
  { id: 'horse', sg: 'horse', pl: 'horses' },
  { id: 'fox', sg: 'fox', pl: 'foxes' },
  { id: 'rabbit', sg: 'rabbit', pl: 'rabbits', pet: true },
  { id: 'goat', sg: 'goat', pl: 'goats' },
  { id: 'cow', sg: 'cow', pl: 'cows' },
  { id: 'donkey', sg: 'donkey', pl: 'donkeys' },
  { id: 'puppy', sg: 'puppy', pl: 'puppies', pet: true },
  { id: 'kitten', sg: 'kitten', pl: 'kittens', pet: true },
  { id: 'pony', sg: 'pony', pl: 'ponies' },
  { id: 'lamb', sg: 'lamb', pl: 'lambs' },
  { id: 'pig', sg: 'pig', pl: 'pigs' },
  { id: 'bear', sg: 'bear', pl: 'bears' },
  { id: 'child', sg: 'child', pl: 'children', person: true },
  { id: 'boy', sg: 'boy', pl: 'boys', person: true },
  { id: 'girl', sg: 'girl', pl: 'girls', person: true },
  { id: 'hiker', sg: 'hiker', pl: 'hikers', person: true },
  { id: 'traveller', sg: 'traveller', pl: 'travellers', person: true },
]);

/** Agent adjectives never said of people here. */
export const NOT_OF_PEOPLE = Object.freeze(['fat', 'heavy']);

/** Objects: singular and plural. */
export const OBJECTS = Object.freeze({
  street: 'streets', road: 'roads', river: 'rivers', bridge: 'bridges', field: 'fields', square: 'squares',
  railway: 'railways', highway: 'highways', fence: 'fences', wall: 'walls', hedge: 'hedges', ditch: 'ditches',
  stream: 'streams', gate: 'gates', table: 'tables', bed: 'beds', sofa: 'sofas', shelf: 'shelves',
  windowsill: 'windowsills', roof: 'roofs', cave: 'caves', tunnel: 'tunnels', barn: 'barns', house: 'houses',
  forest: 'forests', room: 'rooms', shed: 'sheds', hill: 'hills', slope: 'slopes', rock: 'rocks', mountain: 'mountains',
});

/**
 * The frames: `verb` is the negated verb of a pronoun pair ("The dog didn't cross the street because
 * it was too tired."), `past` the plain past of a filler ("The dog crossed the street."), `back` the
 * end of "The street was too wide, so the dog …". `agents: 'pets'` takes only pets; `plural` lists the
 * objects of the frame's plural ("they") form, whose agents include people.
 */
export const FRAMES = Object.freeze([
  {
    id: 'cross', verb: "didn't cross", past: 'crossed', back: "didn't cross it", agents: 'all',
    agentAdjectives: ['tired', 'scared', 'lazy', 'sleepy', 'weak', 'young', 'nervous', 'timid'],
    objects: {
      street: ['wide', 'busy', 'crowded'], road: ['wide', 'busy', 'icy', 'muddy'], river: ['wide', 'deep'],
      bridge: ['narrow', 'icy', 'shaky'], field: ['muddy'], square: ['crowded', 'busy'], railway: ['busy'], highway: ['busy', 'wide'],
    },
    plural: ['river', 'bridge'],
  },
  {
    id: 'jump', verb: "couldn't jump over", past: 'jumped over', back: "couldn't jump over it", agents: 'all',
    agentAdjectives: ['tired', 'scared', 'weak', 'young', 'small', 'old', 'heavy', 'fat', 'clumsy'],
    objects: { fence: ['high'], wall: ['high'], hedge: ['high'], ditch: ['wide', 'deep'], stream: ['wide'], gate: ['high'] },
    plural: ['fence', 'wall', 'hedge', 'ditch'],
  },
  {
    id: 'jump-onto', verb: "didn't jump onto", past: 'jumped onto', back: "couldn't jump onto it", agents: 'pets',
    agentAdjectives: ['tired', 'weak', 'young', 'small', 'old', 'heavy', 'fat', 'clumsy', 'lazy'],
    objects: { table: ['high'], bed: ['high'], sofa: ['high'], shelf: ['high', 'narrow'], windowsill: ['high', 'narrow'], roof: ['high', 'steep'] },
    plural: ['shelf', 'windowsill'],
  },
  {
    id: 'enter', verb: "wouldn't enter", past: 'went into', back: "wouldn't go in", agents: 'all',
    agentAdjectives: ['scared', 'nervous', 'timid', 'frightened'],
    objects: {
      cave: ['dark', 'narrow', 'damp'], tunnel: ['dark', 'narrow', 'long'], barn: ['dark', 'noisy'], house: ['noisy', 'crowded', 'dark'],
      forest: ['dark'], room: ['noisy', 'dark', 'crowded', 'smoky'], shed: ['dark', 'damp'],
    },
    plural: ['cave', 'tunnel', 'forest'],
  },
  {
    id: 'climb', verb: "didn't climb", past: 'climbed', back: "couldn't climb it", agents: 'all',
    agentAdjectives: ['tired', 'weak', 'young', 'small', 'old', 'heavy', 'fat', 'clumsy', 'lazy', 'sleepy'],
    objects: { hill: ['steep', 'icy'], slope: ['steep', 'icy', 'slippery'], rock: ['steep', 'slippery'], mountain: ['steep', 'high'], wall: ['high', 'slippery'] },
    plural: ['hill', 'slope', 'rock', 'mountain', 'wall'],
  },
]);

/** The famous pair: the Transformer's announcement on the Google AI blog (2017), "tired" / "wide". */
export const FAMOUS = Object.freeze({ frame: 'cross', agent: 'animal', object: 'street', agentAdjective: 'tired', objectAdjective: 'wide' });

/** Fillers: what an agent adjective makes the agent do ("The dog was tired, so it lay down."). */
export const CONSEQUENCES = Object.freeze({
  tired: 'lay down', scared: 'ran away', frightened: 'ran away', timid: 'hid behind a tree', lazy: 'did not move',
  sleepy: 'fell asleep', weak: 'sat down', old: 'walked slowly', heavy: 'walked slowly', fat: 'walked slowly',
  clumsy: 'fell over', nervous: 'kept shaking', hungry: 'looked for food', happy: 'ran around',
});

/** Fillers: people with a gendered pronoun ("The girl was hungry, so she looked for food."). */
export const PEOPLE = Object.freeze([
  { id: 'boy', sg: 'boy', pronoun: 'he' }, { id: 'girl', sg: 'girl', pronoun: 'she' },
  { id: 'man', sg: 'man', pronoun: 'he' }, { id: 'woman', sg: 'woman', pronoun: 'she' },
  { id: 'farmer', sg: 'farmer', pronoun: 'he' }, { id: 'teacher', sg: 'teacher', pronoun: 'she' },
]);
export const PEOPLE_ADJECTIVES = Object.freeze(['tired', 'hungry', 'happy', 'scared', 'sleepy', 'nervous']);

/**
 * Agreement across a prepositional phrase: "The keys to the cabinet are on the table." Each head
 * takes its own prepositions and attractors; the predicates fit every head.
 */
export const PP_HEADS = Object.freeze([
  { sg: 'key', pl: 'keys', prep: 'to', attractors: ['cabinet', 'door', 'car', 'drawer', 'garage'] },
  { sg: 'book', pl: 'books', prep: 'on', attractors: ['shelf', 'desk', 'chair', 'bench'] },
  { sg: 'box', pl: 'boxes', prep: 'near', attractors: ['window', 'door', 'stove', 'desk'] },
  { sg: 'picture', pl: 'pictures', prep: 'above', attractors: ['desk', 'fireplace', 'window', 'stove'] },
  { sg: 'letter', pl: 'letters', prep: 'from', attractors: ['teacher', 'farmer', 'doctor', 'lawyer'] },
  { sg: 'photo', pl: 'photos', prep: 'of', attractors: ['garden', 'village', 'harbour', 'castle'] },
]);
export const PP_ATTRACTORS = Object.freeze({
  cabinet: 'cabinets', door: 'doors', car: 'cars', drawer: 'drawers', garage: 'garages', shelf: 'shelves', desk: 'desks',
  chair: 'chairs', bench: 'benches', window: 'windows', stove: 'stoves', fireplace: 'fireplaces', teacher: 'teachers',
  farmer: 'farmers', doctor: 'doctors', lawyer: 'lawyers', garden: 'gardens', village: 'villages', harbour: 'harbours', castle: 'castles',
});
export const PP_PREDICATES = Object.freeze(['on the table', 'in the kitchen', 'new', 'missing', 'still here', 'on the floor']);

/** Agreement across a relative clause: "The dog that chased the cats was tired." */
export const RC_NOUNS = Object.freeze([
  ...AGENTS.filter((a) => ['dog', 'cat', 'horse', 'fox', 'rabbit', 'goat', 'puppy', 'pony', 'child', 'boy', 'girl'].includes(a.id)),
  { id: 'man', sg: 'man', pl: 'men', person: true }, { id: 'woman', sg: 'woman', pl: 'women', person: true },
]);
export const RC_VERBS = Object.freeze(['chased', 'followed', 'watched', 'found']);
export const RC_ADJECTIVES = Object.freeze(['tired', 'hungry', 'scared', 'happy', 'sleepy', 'lazy']);
