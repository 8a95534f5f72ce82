// How fast this machine is from one second to the next: a fixed piece of work
// (JSON and a buffer, as a server does) repeated, pinned to one core, printing the
// CPU ms each repetition took. On a shared virtual machine this moves on its own
// (26 Nov 2026, 09:54 UTC, load 1-2: 381 to 720 ms for the same work on core 0),
// which is why benchmark windows taken one after the other compare badly
// (the history of docs/benchmarks.md).
//
//   taskset -c 0 node .test-build/scripts/bench/machine-speed.js [seconds]

const seconds = Number(process.argv[2] ?? 60);
const sample = { a: [1, 2, 3, 'x'.repeat(50)], b: { c: 'hello world', d: 12345.678 }, e: Array.from({ length: 20 }, (_, i) => ({ i, s: 'v' + i })) };

function unit(): number {
  let sum = 0;
  for (let i = 0; i < 2000; i++) {
    const text = JSON.stringify(sample);
    sum += (JSON.parse(text) as typeof sample).e.length + text.length;
  }
  const bytes = Buffer.alloc(1 << 16);
  for (let i = 0; i < bytes.length; i += 64) bytes[i] = i;
  return sum + bytes.indexOf(7);
}

for (let i = 0; i < 20; i++) unit();
const until = Date.now() + seconds * 1000;
const taken: number[] = [];
while (Date.now() < until) {
  const before = process.cpuUsage();
  for (let i = 0; i < 20; i++) unit();
  const used = process.cpuUsage(before);
  taken.push(Math.round((used.user + used.system) / 1000));
  await new Promise((resolve) => setTimeout(resolve, 300));
}
const sorted = [...taken].sort((a, b) => a - b);
console.log(taken.join(' '));
console.log(`CPU ms per repetition: min ${sorted[0]}, median ${sorted[Math.floor(sorted.length / 2)]}, max ${sorted.at(-1)} (${taken.length} repetitions)`);
