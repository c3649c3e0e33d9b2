// difftest's ONNX Runtime worker: one long-lived process that the harness (ort_compiler.cc) feeds
// one JSON request per line on stdin and that answers one JSON line per request on stdout.
// Tensors travel as raw little-endian byte ranges of files in a directory the request names (a
// case's inputs in one file, its outputs in another), so nothing large crosses the pipe. ORT's own log (every transformer it applies, at severity 0) goes to stderr;
// after each answer the worker writes "@@done <id>" there, so the harness knows where one
// request's log ends.
//
//   node ort_worker.js NODE_MODULES_DIR
//
// Requests:
//   {"id": 1, "op": "version"}
//   {"id": 2, "op": "run", "model": "m.onnx", "level": "all", "disable": ["GeluFusionL1"],
//    "log": true, "optimized": "opt.onnx" | null, "repeat": 2, "dir": "/tmp/x",
//    "cases": [[{"name": "x", "type": "float32", "dims": [2, 3], "file": "c0_in.bin", "offset": 0,
//                "bytes": 24}, ...], ...]}
// Answers:
//   {"id": 2, "ok": true, "session_ms": 12.5, "runs": [{"run_ms": 0.4, "outputs": [{"name", "type",
//    "dims", "file", "offset", "bytes"}], "differs": null | {"output": "y", "byte": 12}}]}
//   {"id": 2, "ok": false, "stage": "session" | "run", "case": 0, "error": "..."}
'use strict';

const fs = require('fs');
const path = require('path');
const readline = require('readline');

const ort = require(path.join(process.argv[2] || '', 'onnxruntime-node'));

const kArrays = {
  float32: Float32Array,
  float64: Float64Array,
  float16: Uint16Array,
  int64: BigInt64Array,
  int32: Int32Array,
  int8: Int8Array,
  uint8: Uint8Array,
  uint32: Uint32Array,
  bool: Uint8Array,
};

// `files` caches each file read, by name.
function readTensor(dir, t, files) {
  const Array = kArrays[t.type];
  if (!Array) throw new Error(`input ${t.name}: the worker has no tensor type ${t.type}`);
  if (!files.has(t.file)) files.set(t.file, fs.readFileSync(path.join(dir, t.file)));
  const file = files.get(t.file);
  const bytes = file.subarray(t.offset, t.offset + t.bytes);
  // A copy: the typed array must start at an offset its element size divides.
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  const data = new Array(copy.buffer, 0, bytes.length / Array.BYTES_PER_ELEMENT);
  return new ort.Tensor(t.type, t.type === 'bool' ? new Uint8Array(copy.buffer) : data, t.dims);
}

function bytesOf(tensor) {
  const d = tensor.data;
  return Buffer.from(d.buffer, d.byteOffset, d.byteLength);
}

// The first byte at which two answers of the same session differ, or null.
function firstDifference(a, b) {
  for (const name of Object.keys(a)) {
    const x = bytesOf(a[name]), y = bytesOf(b[name]);
    if (x.length !== y.length) return {output: name, byte: 0};
    if (x.equals(y)) continue;  // native: findIndex calls back into JavaScript for every byte
    const at = x.findIndex((v, i) => v !== y[i]);
    if (at >= 0) return {output: name, byte: at};
  }
  return null;
}

async function run(req) {
  const options = {
    graphOptimizationLevel: req.level,
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    logSeverityLevel: req.log ? 0 : 3,
    logId: `request${req.id}`,
  };
  if (req.disable && req.disable.length) {
    // ';' separates the names; ORT ignores a ','-joined list silently.
    options.extra = {optimization: {disable_specified_optimizers: req.disable.join(';')}};
  }
  if (req.optimized) options.optimizedModelFilePath = req.optimized;
  let session;
  // The harness attributes a crash or a hang to the last stage named on stderr.
  process.stderr.write('@@stage session\n');
  const t0 = process.hrtime.bigint();
  try {
    session = await ort.InferenceSession.create(req.model, options);
  } catch (e) {
    return {ok: false, stage: 'session', case: 0, error: String(e && e.message ? e.message : e)};
  }
  const session_ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const runs = [];
  try {
    for (let c = 0; c < req.cases.length; ++c) {
      const feeds = {};
      let stage = 'inputs';
      process.stderr.write(`@@stage run ${c}\n`);
      try {
        const files = new Map();
        for (const t of req.cases[c]) feeds[t.name] = readTensor(req.dir, t, files);
        stage = 'run';
        const t1 = process.hrtime.bigint();
        const first = await session.run(feeds);
        const run_ms = Number(process.hrtime.bigint() - t1) / 1e6;
        let differs = null;
        for (let r = 1; r < (req.repeat || 1) && !differs; ++r) differs = firstDifference(first, await session.run(feeds));
        const file = `c${c}_out.bin`;
        const buffers = session.outputNames.map((name) => bytesOf(first[name]));
        let offset = 0;
        const outputs = session.outputNames.map((name, i) => {
          const out = {name, type: first[name].type, dims: first[name].dims.map(Number), file, offset,
                       bytes: buffers[i].length};
          offset += buffers[i].length;
          return out;
        });
        fs.writeFileSync(path.join(req.dir, file), Buffer.concat(buffers));
        runs.push({run_ms, outputs, differs});
      } catch (e) {
        return {ok: false, stage, case: c, error: String(e && e.message ? e.message : e)};
      }
    }
  } finally {
    await session.release();
  }
  return {ok: true, session_ms, runs};
}

async function answer(line) {
  let req;
  try {
    req = JSON.parse(line);
  } catch (e) {
    return {id: null, ok: false, stage: 'request', error: `not JSON: ${e.message}`};
  }
  if (req.op === 'version') return {id: req.id, ok: true, versions: ort.env.versions};
  if (req.op === 'run') return Object.assign({id: req.id}, await run(req));
  return {id: req.id, ok: false, stage: 'request', error: `unknown op ${req.op}`};
}

// One request at a time, in order: the harness waits for each answer.
const lines = readline.createInterface({input: process.stdin});
let queue = Promise.resolve();
lines.on('line', (line) => {
  queue = queue.then(async () => {
    const reply = await answer(line);
    process.stderr.write(`@@done ${reply.id}\n`);
    process.stdout.write(JSON.stringify(reply) + '\n');
  });
});
lines.on('close', () => queue.then(() => process.exit(0)));
