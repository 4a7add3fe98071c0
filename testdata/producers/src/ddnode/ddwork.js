// ddwork.js writes pprof profiles with @datadog/pprof, Datadog's Node.js
// profiler: wall time with CPU time and labels (one a number under a key
// with a space), the same in line-number mode, and a heap profile.
//   npm install && node ddwork.js DIR
'use strict';
const fs = require('fs');
const path = require('path');
const { time, heap, encode } = require('@datadog/pprof');

function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

function hashStrings(n) {
  let h = 0;
  for (let i = 0; i < n; i++) {
    const s = 'key-' + i;
    for (let j = 0; j < s.length; j++) h = (h * 31 + s.charCodeAt(j)) | 0;
  }
  return h;
}

const sortMany = (n) => {
  const xs = [];
  for (let i = 0; i < n; i++) xs.push((i * 2654435761) % 1000003);
  return xs.sort((a, b) => a - b)[n >> 1];
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const keep = [];
function allocate(n) {
  for (let i = 0; i < n; i++) keep.push({ i, s: 'x'.repeat(64 + (i % 200)), a: new Array(16).fill(i) });
}

async function phases(ms) {
  let sink = 0;
  const end = Date.now() + ms;
  while (Date.now() < end) {
    time.setContext({ phase: 'fib', size: 22 });
    sink += fib(22);
    time.setContext({ phase: 'hash', size: 20000 });
    sink += hashStrings(20000);
    time.setContext({ phase: 'sort', size: 30000 });
    sink += sortMany(30000);
    time.setContext({ phase: 'idle', size: 0 });
    await sleep(2);
  }
  return sink;
}

// Labels from the context each sample was taken in: a string and a
// number whose key has a space.
const labels = ({ context }) => {
  const c = context && context.context;
  return c ? { phase: c.phase, 'request size': c.size } : {};
};

async function wall(dir, name, lineNumbers) {
  // Line-number mode can keep neither contexts (labels) nor CPU time.
  time.start({ intervalMicros: 1000, durationMillis: 60000, withContexts: !lineNumbers, collectCpuTime: !lineNumbers, lineNumbers });
  await phases(700);
  const p = time.stop(false, labels);
  fs.writeFileSync(path.join(dir, name), await encode(p));
}

async function main() {
  const dir = process.argv[2];
  await wall(dir, 'wall.pb.gz', false);
  await wall(dir, 'wall-lines.pb.gz', true);
  heap.start(16 * 1024, 64);
  allocate(30000);
  fs.writeFileSync(path.join(dir, 'heap.pb.gz'), await encode(heap.profile()));
  heap.stop();
}

main().catch((e) => { console.error(e); process.exit(1); });
