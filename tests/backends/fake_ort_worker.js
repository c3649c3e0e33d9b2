// A stand-in for ort_worker.js that misbehaves by optimization level, so that every way an
// external compiler can fail is seen to become its verdict: "basic" crashes during the session,
// "extended" spins in the run, "layout" answers differently on its second run, "all" answers
// zeros, "disabled" has no kernel. It speaks the worker's protocol (ort_worker.js).
'use strict';
const fs = require('fs');
const path = require('path');
const readline = require('readline');

function answer(req) {
  if (req.op === 'version') return {id: req.id, ok: true, versions: {node: 'fake'}};
  process.stderr.write('@@stage session\n');
  if (req.level === 'disabled') {
    return {id: req.id, ok: false, stage: 'session', error: "Could not find an implementation for Tanh(13) node with name ''"};
  }
  if (req.level === 'basic') process.kill(process.pid, 'SIGSEGV');
  const runs = req.cases.map((feeds, c) => {
    process.stderr.write(`@@stage run ${c}\n`);
    if (req.level === 'extended') for (;;) {}
    const x = feeds[0];
    const file = `c${c}_out0.bin`;
    const bytes = fs.readFileSync(path.join(req.dir, x.file)).subarray(x.offset, x.offset + x.bytes);
    const values = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
    const y = values.map((v) => (req.level === 'all' ? 0 : Math.tanh(v)));  // the program's tanh, or zeros
    fs.writeFileSync(path.join(req.dir, file), Buffer.from(y.buffer));
    return {run_ms: 0.1, outputs: [{name: 'y', type: x.type, dims: x.dims, file}],
            differs: req.level === 'layout' ? {output: 'y', byte: 4} : null};
  });
  return {id: req.id, ok: true, session_ms: 1, runs};
}

const lines = readline.createInterface({input: process.stdin});
lines.on('line', (line) => {
  const reply = answer(JSON.parse(line));
  process.stderr.write(`@@done ${reply.id}\n`);
  process.stdout.write(JSON.stringify(reply) + '\n');
});
