// The Chinese words of the generated sentences (scripts/reader/sentences.mjs), modern Mandarin.
// A pronoun pair is "小狗没有跳过栅栏，因为它太高了。": 它 can mean the animal or the thing, and the
// adjective after 太 decides which. Only animals are agents: 他/她/他们 can never mean a street, so
// with a person the pronoun alone would decide and the adjective would teach nothing.
// No word is a substring of another that matters: 马 (horse) would hide inside 马路, 山 inside 山洞,
// 树 inside 树林, 老 (old) inside 老虎, 高 (high) inside 高兴, so those are left out (a held-out
// combination is checked on the characters as well as on the words).

/** Agents (all 它) and their classifier. Pets also jump onto furniture. */
export const AGENTS = Object.freeze([
  { id: 'animal', zh: '动物', cl: '只' },
  { id: 'puppy', zh: '小狗', cl: '只', pet: true },
  { id: 'kitten', zh: '小猫', cl: '只', pet: true },
  { id: 'rabbit', zh: '兔子', cl: '只', pet: true },
  { id: 'lamb', zh: '小羊', cl: '只' },
  { id: 'cow', zh: '牛', cl: '头' },
  { id: 'fox', zh: '狐狸', cl: '只' },
  { id: 'fawn', zh: '小鹿', cl: '只' },
  { id: 'donkey', zh: '驴', cl: '头' },
  { id: 'monkey', zh: '猴子', cl: '只', pet: true },
  { id: 'bear', zh: '熊', cl: '头' },
  { id: 'pig', zh: '猪', cl: '头' },
  { id: 'squirrel', zh: '松鼠', cl: '只', pet: true },
]);

/** Objects and their classifier (那条马路, 那道栅栏, 那个山洞). */
export const OBJECTS = Object.freeze({
  road: { zh: '马路', cl: '条' }, river: { zh: '河', cl: '条' }, bridge: { zh: '桥', cl: '座' }, street: { zh: '街道', cl: '条' },
  wood: { zh: '树林', cl: '片' }, square: { zh: '广场', cl: '个' }, grass: { zh: '草丛', cl: '片' },
  fence: { zh: '栅栏', cl: '道' }, hedge: { zh: '篱笆', cl: '道' }, wall: { zh: '墙', cl: '堵' }, ditch: { zh: '水沟', cl: '条' },
  stream: { zh: '小溪', cl: '条' }, rock: { zh: '石头', cl: '块' },
  sofa: { zh: '沙发', cl: '张' }, table: { zh: '桌子', cl: '张' }, bed: { zh: '床', cl: '张' }, windowsill: { zh: '窗台', cl: '个' },
  cupboard: { zh: '柜子', cl: '个' },
  cave: { zh: '山洞', cl: '个' }, tunnel: { zh: '隧道', cl: '条' }, hut: { zh: '屋子', cl: '间' }, room: { zh: '房间', cl: '个' },
  cage: { zh: '笼子', cl: '个' }, yard: { zh: '院子', cl: '个' },
  slope: { zh: '山坡', cl: '个' }, steps: { zh: '台阶', cl: '段' }, stairs: { zh: '楼梯', cl: '段' }, lake: { zh: '湖', cl: '个' },
  puddle: { zh: '水坑', cl: '个' }, storeroom: { zh: '仓库', cl: '个' }, cellar: { zh: '地下室', cl: '间' }, kitchen: { zh: '厨房', cl: '间' },
  ladder: { zh: '梯子', cl: '架' }, bank: { zh: '土坡', cl: '个' }, reservoir: { zh: '水库', cl: '个' }, forest: { zh: '森林', cl: '片' },
  park: { zh: '公园', cl: '个' },
});

/**
 * The frames: `verb` is the negated verb of a pronoun pair (没有过, 不肯进), `past` the verb of a
 * filler ("小狗过了马路。"), `back` the end of "那条马路太宽了，小狗不敢过去。". Adjectives as in
 * lexicon-en.mjs: an agent's and, for each object, the object's; never on both lists.
 */
export const FRAMES = Object.freeze([
  {
    id: 'cross', verb: '没有过', past: '过了', back: '不敢过去', agents: 'all',
    agentAdjectives: ['累', '害怕', '胆小', '懒', '困', '虚弱', '紧张'],
    objects: { road: ['宽', '滑'], river: ['宽', '深'], bridge: ['窄', '滑', '长'] },
  },
  {
    id: 'through', verb: '没有穿过', past: '穿过了', back: '不想穿过去', agents: 'all',
    agentAdjectives: ['累', '害怕', '胆小', '懒', '虚弱', '紧张'],
    objects: { wood: ['密', '黑'], square: ['挤', '大'], grass: ['密', '高'], street: ['宽', '挤'], forest: ['密', '黑', '大'], park: ['大', '挤'] },
  },
  {
    id: 'jump', verb: '没有跳过', past: '跳过了', back: '跳不过去', agents: 'all',
    agentAdjectives: ['累', '害怕', '虚弱', '老', '胖', '笨重', '懒'],
    objects: { fence: ['高'], hedge: ['高'], wall: ['高'], ditch: ['宽', '深'], stream: ['宽', '深'], rock: ['高'], puddle: ['宽', '大'] },
  },
  {
    id: 'jump-onto', verb: '没有跳上', past: '跳上了', back: '跳不上去', agents: 'pets',
    agentAdjectives: ['累', '虚弱', '老', '胖', '懒'],
    objects: { sofa: ['高'], table: ['高'], bed: ['高'], windowsill: ['高', '窄'], cupboard: ['高'] },
  },
  {
    id: 'enter', verb: '不肯进', past: '进了', back: '不敢进去', agents: 'all',
    agentAdjectives: ['害怕', '胆小', '紧张'],
    objects: {
      cave: ['黑', '窄', '潮湿'], tunnel: ['黑', '长', '窄'], hut: ['吵', '黑', '挤'], room: ['吵', '黑', '乱'], cage: ['窄'],
      yard: ['吵', '乱'], wood: ['黑', '密'], storeroom: ['黑', '乱', '潮湿'], cellar: ['黑', '潮湿'], kitchen: ['吵', '乱'],
    },
  },
  {
    id: 'climb', verb: '没有爬上', past: '爬上了', back: '爬不上去', agents: 'all',
    agentAdjectives: ['累', '虚弱', '老', '胖', '懒', '困', '笨重'],
    objects: { slope: ['陡', '滑'], steps: ['高', '陡'], stairs: ['陡', '窄'], wall: ['高', '滑'], ladder: ['高', '陡'], bank: ['陡', '滑'] },
  },
  {
    id: 'swim', verb: '没有游过', past: '游过了', back: '游不过去', agents: 'all',
    agentAdjectives: ['累', '害怕', '虚弱', '老', '懒'],
    objects: { river: ['宽'], lake: ['大', '宽'], reservoir: ['大', '宽'] },
  },
]);

/** The famous pair, in the translation the lessons use. */
export const FAMOUS = Object.freeze({ frame: 'cross', agent: 'animal', object: 'road', agentAdjective: '累', objectAdjective: '宽' });

/** Fillers: what an agent adjective makes the agent do ("小狗太累了，它想休息。"). */
export const CONSEQUENCES = Object.freeze({
  累: '想休息', 害怕: '躲了起来', 胆小: '躲在树后面', 懒: '一动也不动', 困: '睡着了', 虚弱: '站不起来了', 紧张: '一直在发抖',
  老: '走得很慢', 胖: '跑不快', 笨重: '走得很慢', 饿: '在找吃的', 开心: '跑来跑去',
});

/** Fillers: people with a gendered pronoun ("那个女孩很饿，她想吃东西。"). */
export const PEOPLE = Object.freeze([
  { id: 'boy', zh: '男孩', det: '那个', pronoun: '他' }, { id: 'girl', zh: '女孩', det: '那个', pronoun: '她' },
  { id: 'mother', zh: '妈妈', det: '', pronoun: '她' }, { id: 'father', zh: '爸爸', det: '', pronoun: '他' },
  { id: 'brother', zh: '哥哥', det: '', pronoun: '他' }, { id: 'sister', zh: '姐姐', det: '', pronoun: '她' },
]);
export const PEOPLE_ADJECTIVES = Object.freeze({ 累: '想休息', 饿: '想吃东西', 开心: '笑了', 害怕: '哭了', 困: '想睡觉', 紧张: '说不出话来' });

/**
 * Agreement across a 的-clause: the classifier after 那 is chosen by the head noun that ends the
 * clause, and the clause's own noun takes another: "那只追过两个孩子的小猫很累。" (只 ← 小猫, not 个 ← 孩子).
 */
export const CLASSIFIER_NOUNS = Object.freeze([
  { id: 'kitten', zh: '小猫', cl: '只' }, { id: 'rabbit', zh: '兔子', cl: '只' }, { id: 'bird', zh: '小鸟', cl: '只' },
  { id: 'duck', zh: '鸭子', cl: '只' }, { id: 'fox', zh: '狐狸', cl: '只' }, { id: 'cow', zh: '牛', cl: '头' },
  { id: 'pig', zh: '猪', cl: '头' }, { id: 'donkey', zh: '驴', cl: '头' },
  { id: 'child', zh: '孩子', cl: '个' }, { id: 'boy', zh: '男孩', cl: '个' }, { id: 'girl', zh: '女孩', cl: '个' },
  { id: 'student', zh: '学生', cl: '个' },
]);
export const CLASSIFIER_VERBS = Object.freeze(['追过', '见过', '救过']);
export const CLASSIFIER_PREDICATES = Object.freeze(['很累', '很饿', '很开心', '睡着了', '跑走了', '很害怕']);
export const CLASSIFIER_COUNTS = Object.freeze(['一', '两', '三', '那']);

/** Agreement with a location clause: "那本放在桌子上的书是我的。" (本 ← 书, not 张 ← 桌子). */
export const THINGS = Object.freeze([
  { zh: '书', cl: '本' }, { zh: '钥匙', cl: '把' }, { zh: '伞', cl: '把' }, { zh: '笔', cl: '支' }, { zh: '照片', cl: '张' },
  { zh: '衣服', cl: '件' }, { zh: '帽子', cl: '顶' }, { zh: '信', cl: '封' },
]);
export const SURFACES = Object.freeze([
  { zh: '桌子', cl: '张' }, { zh: '椅子', cl: '把' }, { zh: '床', cl: '张' }, { zh: '柜子', cl: '个' }, { zh: '沙发', cl: '张' }, { zh: '箱子', cl: '个' },
]);
export const THING_PREDICATES = Object.freeze(['是我的', '是新的', '是妈妈的', '很旧', '是她的']);
