// gnode.js writes pprof profiles with npm pprof, Google's Node.js profiler
// (google/pprof-nodejs): wall time in microseconds, and a heap profile.
//   npm install && npm rebuild pprof && node gnode.js DIR
'use strict';
const fs = require('fs');
const path = require('path');
const pprof = require('pprof');

function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

const sortMany = (n) => {
  const xs = [];
  for (let i = 0; i < n; i++) xs.push((i * 2654435761) % 1000003);
  return xs.sort((a, b) => a - b)[n >> 1];
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const keep = [];
function buildIndex(n) {
  const m = new Map();
  for (let i = 0; i < n; i++) m.set('k' + i, { i, tags: ['a' + (i % 10), 'b' + (i % 7)] });
  keep.push(m);
}

async function main() {
  const dir = process.argv[2];
  const stop = pprof.time.start(1000);
  let sink = 0;
  for (const end = Date.now() + 600; Date.now() < end;) {
    sink += fib(21) + sortMany(20000);
    await sleep(1);
  }
  fs.writeFileSync(path.join(dir, 'gwall.pb.gz'), await pprof.encode(stop()));
  pprof.heap.start(16 * 1024, 64);
  buildIndex(50000);
  fs.writeFileSync(path.join(dir, 'gheap.pb.gz'), await pprof.encode(pprof.heap.profile()));
  pprof.heap.stop();
  if (sink === 42) console.log(sink);
}

main().catch((e) => { console.error(e); process.exit(1); });
