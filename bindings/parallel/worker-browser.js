// The pool's module Worker in browsers: see worker-tasks.js for what it answers. It loads the
// build from the bytes the page sends (wasmBinary), through load.js directly rather than index.js:
// index.js names this file's pool (createWorkerPool), and a worker chunk that imports it again is
// a cycle of chunks that bundlers refuse (webpack: "Circular dependency between chunks with runtime").
import { INFERENCE } from '../builds.js';
import { load } from '../load.js';
import { serveTasks } from './worker-tasks.js';

const init = (options) => load(options, async () => ({}), INFERENCE);
const serve = serveTasks(init, (message, transfer) => self.postMessage(message, transfer));
self.addEventListener('message', (event) => serve(event.data));
