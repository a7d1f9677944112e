// The page's side of the Worker protocol (see worker.js): calls, runs with progress, and a cancel
// that works at once: the Worker is asked to stop, and if it has not answered within CANCEL_GRACE_MS
// it is terminated and a fresh one is started (the wasm is re-instantiated from the HTTP cache).

const CANCEL_GRACE_MS = 150;

export class SimWorker {
  constructor(url = new URL('../worker.js', import.meta.url)) {
    this.url = url;
    this.nextId = 1;
    this.pending = new Map();
    this.spawn();
  }

  spawn() {
    this.worker = new Worker(this.url, { type: 'module' });
    this.worker.onmessage = (e) => this.onMessage(e.data);
    this.worker.onerror = (e) => {
      const message = 'The simulator Worker failed: ' + (e.message || 'unknown error');
      for (const p of this.pending.values()) p.reject(Object.assign(new Error(message), { kind: 'load' }));
      this.pending.clear();
      e.preventDefault();
    };
    this.ready = new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, { resolve, reject, hello: true });
      this.worker.postMessage({ type: 'hello', id });
    });
  }

  onMessage(m) {
    if (m.type === 'ready') {
      // The hello reply carries no id of its own: resolve the oldest hello.
      for (const [id, p] of this.pending) {
        if (p.hello) {
          this.pending.delete(id);
          p.resolve({ version: m.version, api: m.api });
          return;
        }
      }
      return;
    }
    const p = this.pending.get(m.id);
    if (!p) return; // a message from a run that was cancelled
    switch (m.type) {
      case 'progress':
        p.onProgress?.(m);
        break;
      case 'reply':
        this.pending.delete(m.id);
        p.resolve(m.value);
        break;
      case 'result':
        this.pending.delete(m.id);
        p.resolve(m);
        break;
      case 'cancelled':
        this.pending.delete(m.id);
        p.reject(Object.assign(new Error('Run cancelled.'), { kind: 'cancelled' }));
        break;
      case 'error':
        this.pending.delete(m.id);
        p.reject(Object.assign(new Error(m.message), { kind: m.kind }));
        break;
      default:
    }
  }

  /** Calls a synchronous wasm export by name; resolves with its (structured-cloned) value. */
  async call(fn, ...args) {
    await this.ready;
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ type: 'call', id, fn, args });
    });
  }

  /**
   * Starts a run. Returns { promise, cancel }: promise resolves with {result, elapsedMs} or rejects
   * with an Error whose .kind is 'cancelled', 'input', 'oom', 'panic' or 'load'.
   */
  run(request, onProgress) {
    const id = this.nextId++;
    let entry;
    const promise = this.ready.then(
      () =>
        new Promise((resolve, reject) => {
          entry = { resolve, reject, onProgress };
          this.pending.set(id, entry);
          const transfer = [];
          this.worker.postMessage({ type: 'run', id, ...request }, transfer);
        }),
    );
    const cancel = () => {
      if (!this.pending.has(id)) return;
      this.worker.postMessage({ type: 'cancel', id });
      setTimeout(() => {
        if (this.pending.get(id) === entry) {
          // The Worker is inside a long slice: stop it outright and start a fresh one.
          this.worker.terminate();
          const waiting = [...this.pending.values()];
          this.pending.clear();
          for (const p of waiting) {
            if (p === entry) p.reject(Object.assign(new Error('Run cancelled.'), { kind: 'cancelled' }));
            else p.reject(Object.assign(new Error('The simulator was restarted.'), { kind: 'cancelled' }));
          }
          this.spawn();
        }
      }, CANCEL_GRACE_MS);
    };
    return { id, promise, cancel };
  }
}
