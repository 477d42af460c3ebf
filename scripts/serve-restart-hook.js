// A --target-restart hook for `serve` processes kept by a supervisor (test/http-target.test.ts,
// scripts/target-example.ts): asks the supervisor at TARGET_CONTROL_URL to restart node RESERVEBENCH_NODE
// (stop that serve process, start it again on the same port) and exits 0 once it is listening again.
const control = process.env.TARGET_CONTROL_URL;
const node = process.env.RESERVEBENCH_NODE;
const answer = await fetch(`${control}/restart/${node}`, { method: 'POST' });
if (!answer.ok) {
  process.stderr.write(`restart of node ${node} failed: ${answer.status} ${await answer.text()}\n`);
  process.exit(1);
}
