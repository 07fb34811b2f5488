// The pool's worker in Node.js (worker_threads): see worker-tasks.js for what it answers.
import { parentPort } from 'node:worker_threads';

import { init } from '../node.js';
import { serveTasks } from './worker-tasks.js';

const serve = serveTasks(init, (message, transfer) => parentPort.postMessage(message, transfer));
parentPort.on('message', serve);
