// The pool's module Worker in browsers: see worker-tasks.js for what it answers.
import { init } from '../index.js';
import { serveTasks } from './worker-tasks.js';

const serve = serveTasks(init, (message, transfer) => self.postMessage(message, transfer));
self.addEventListener('message', (event) => serve(event.data));
