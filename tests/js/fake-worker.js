// A stand-in Worker for the page's TrainSession in Node: records what the page posts; `say(m)`
// delivers a message from the worker.
export class FakeWorker extends EventTarget {
  posted = [];
  terminated = false;
  postMessage(m) {
    this.posted.push(m);
  }
  terminate() {
    this.terminated = true;
  }
  say(m) {
    this.dispatchEvent(Object.assign(new Event('message'), { data: m }));
  }
}
