/**
 * The "second load beside it" of `npm run bench -- --large --loaded`: what a CI runner's other
 * jobs do to a shared machine, one core kept busy by JSON round trips of a 1 MB document (CPU
 * and memory traffic, as a test run's), until its parent disconnects.
 */
const rows = Array.from({ length: 5_000 }, (_, i) => ({
  id: `row-${i}`,
  amount: i * 1000,
  memo: `memo ${i} ${'x'.repeat(i % 100)}`,
  date: '2026-01-01',
}));
const text = JSON.stringify(rows);
let running = true;
process.on('disconnect', () => {
  running = false;
});
process.send?.({ type: 'ready' });
// Each turn yields to the event loop so the disconnect is seen.
function turn(): void {
  if (!running) return;
  for (let i = 0; i < 5; i++) JSON.stringify(JSON.parse(text));
  setImmediate(turn);
}
turn();
