// A stand-in for ort_worker.js whose level 'all' has two fusions that mask each other, as ORT's
// L1/L2 matchers do: GeluFusionL1 answers zeros; disabled, it lets GeluFusionL2 fire, which
// answers zeros too. ConstantFolding and CommonSubexpressionElimination modify the graph
// harmlessly. Logs in ORT's format when asked; the program is y = tanh(x) on f32.
'use strict';
const fs = require('fs');
const path = require('path');
const readline = require('readline');

function fired(req) {
  const off = new Set(req.disable || []);
  if (req.level === 'disabled') return [];
  const out = ['ConstantFolding', 'CommonSubexpressionElimination'].filter((t) => !off.has(t));
  if (!off.has('GeluFusionL1')) out.push('GeluFusionL1');
  else if (!off.has('GeluFusionL2')) out.push('GeluFusionL2');
  return out;
}

function answer(req) {
  const transformers = fired(req);
  if (req.log) {
    for (const t of ['ConstantFolding', 'CommonSubexpressionElimination', 'GeluFusionL1', 'GeluFusionL2', 'NoopElimination']) {
      if (req.level === 'disabled') break;
      process.stderr.write(`[I:onnxruntime:, graph_transformer.cc:15 Apply] GraphTransformer ${t} modified: ${transformers.includes(t) ? 1 : 0} with status: OK\n`);
    }
  }
  const wrong = transformers.some((t) => t.startsWith('GeluFusion'));
  const runs = req.cases.map((feeds, c) => {
    const x = feeds[0];
    const file = `c${c}_out0.bin`;
    const bytes = fs.readFileSync(path.join(req.dir, x.file)).subarray(x.offset, x.offset + x.bytes);
    const values = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
    const y = values.map((v) => (wrong ? 0 : Math.tanh(v)));
    fs.writeFileSync(path.join(req.dir, file), Buffer.from(y.buffer));
    return {run_ms: 0.1, outputs: [{name: 'y', type: x.type, dims: x.dims, file}], differs: null};
  });
  return {id: req.id, ok: true, session_ms: 1, runs};
}

const lines = readline.createInterface({input: process.stdin});
lines.on('line', (line) => {
  const reply = answer(JSON.parse(line));
  process.stderr.write(`@@done ${reply.id}\n`);
  process.stdout.write(JSON.stringify(reply) + '\n');
});
