// work.js burns CPU in a few JavaScript functions (named, anonymous,
// methods, recursion) for node --cpu-prof:
//   node --cpu-prof --cpu-prof-interval 500 work.js
'use strict';

function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

function hashStrings(n) {
  let h = 0;
  for (let i = 0; i < n; i++) {
    const s = 'key-' + i;
    for (let j = 0; j < s.length; j++) h = (h * 31 + s.charCodeAt(j)) | 0;
  }
  return h;
}

class Matrix {
  constructor(n) {
    this.n = n;
    this.a = new Float64Array(n * n).map((_, i) => i % 7);
  }
  multiply(o) {
    const n = this.n, r = new Matrix(n);
    for (let i = 0; i < n; i++)
      for (let k = 0; k < n; k++) {
        const x = this.a[i * n + k];
        for (let j = 0; j < n; j++) r.a[i * n + j] += x * o.a[k * n + j];
      }
    return r;
  }
}

const sortMany = (n) => {
  const xs = [];
  for (let i = 0; i < n; i++) xs.push((i * 2654435761) % 1000003);
  return xs.sort((a, b) => a - b)[n >> 1];
};

let sink = 0;
const start = Date.now();
while (Date.now() - start < 800) {
  sink += fib(22);
  sink += hashStrings(20000);
  sink += new Matrix(60).multiply(new Matrix(60)).a[5];
  sink += sortMany(20000);
  sink += [1, 2, 3].map(function (x) { return x * hashStrings(200); })[2];
}
console.log(sink);
