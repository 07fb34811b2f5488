// npm run train:reader: remakes checkpoints/reader/reader.bin from the corpora. The corpora's packages
// (corpora/, a separate install), their text split (corpus.mjs), the two models trained by their
// recipe at once, one process each (train.mjs), then quantized, measured and packed (pack.mjs).
// Deterministic: the same build of the library gives the same bytes. On this project's 2-core machine
// the decoder takes the longest (docs/reader-data.md gives the times).
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

function step(command, args) {
  console.log(`train:reader: ${command} ${args.join(' ')}`);
  const r = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`train:reader: ${command} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
}

const trained = (model) => new Promise((resolve, reject) => {
  const child = spawn(process.execPath, ['scripts/reader/train.mjs', `--model=${model}`], { cwd: root, stdio: 'inherit' });
  child.on('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`train:reader: training the ${model} failed (exit ${code ?? signal})`))));
});

step('npm', ['ci', '--no-audit', '--no-fund', '--prefix', 'corpora']);
step(process.execPath, ['scripts/reader/corpus.mjs']);
await Promise.all([trained('encoder'), trained('decoder')]);
step(process.execPath, ['scripts/reader/pack.mjs']);
