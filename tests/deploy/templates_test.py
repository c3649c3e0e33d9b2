#!/usr/bin/env python3
"""templates_test.py DIFFTEST SOURCE_DIR: the campaign templates of deploy/, tested as far as a
machine without a cluster allows.

- Kubernetes: both manifests pass kubernetes-validate --strict (the Kubernetes API's own
  schemas) and a misspelt field fails it; the Indexed Job's container script runs here once per
  completion index with JOB_COMPLETION_INDEX set as Kubernetes sets it, one index again as a
  retried pod (it resumes), then the merge Job's script.
- GitHub Actions: the workflow passes check-jsonschema's GitHub workflow schema and a misspelt
  key fails it; the shard job's run steps run once per matrix value, with the expressions
  GitHub would substitute, its upload step emulated by a copy; then the merge job's.
- Slurm: the array script runs once per id of its #SBATCH --array with the variables Slurm
  sets, then the merge script.

Each must cover every seed exactly once, say the shard it took from the scheduler's variable,
and end in a merged campaign with its report. The seeds and fuzz flags are made small through
the variables the templates read (DIFFTEST_SEEDS / inputs.seeds / SEEDS, DIFFTEST_FLAGS)."""
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

DIFFTEST, SOURCE = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
VENV_BIN = os.path.dirname(sys.executable)
SEEDS, LAST = "0..23", 23
FLAGS = "--jobs 1 --opt O0 --orders 0 --random-bindings 0 --timeout 60"
DEPLOY = os.path.join(SOURCE, "deploy")
failures = []


def check(ok, what, detail=""):
    print(("ok   " if ok else "FAIL ") + what + ("" if ok else f"\n{detail}"))
    if not ok:
        failures.append(what)


def run(script, env, cwd):
    full = dict(os.environ, PATH=os.path.dirname(DIFFTEST) + os.pathsep + os.environ["PATH"], **env)
    return subprocess.run(["bash", "-c", script], env=full, cwd=cwd, capture_output=True, text=True, timeout=600)


def run_all(jobs):
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(lambda j: run(*j), jobs))


def merged_seeds(merged):
    seeds = [json.loads(line)["seed"] for line in open(os.path.join(merged, "journal.jsonl"))]
    return seeds


def check_merged(name, merged):
    seeds = merged_seeds(merged)
    check(seeds == list(range(LAST + 1)), f"{name}: the merged journal holds seeds 0..{LAST} once each ({len(seeds)} lines)")
    check(os.path.isfile(os.path.join(merged, "report.html")) and os.path.isfile(os.path.join(merged, "report.json")),
          f"{name}: the merge step wrote the report")
    gate = json.load(open(os.path.join(merged, "gate.json")))
    check(len(gate["cases"]) == 8, f"{name}: the gate's JSON has one case per shard ({len(gate['cases'])})")


def schema_rejects(tool_args, text, suffix):
    with tempfile.NamedTemporaryFile("w", suffix=suffix, delete=False) as f:
        f.write(text)
    try:
        return subprocess.run(tool_args + [f.name], capture_output=True, text=True).returncode != 0
    finally:
        os.unlink(f.name)


def kubernetes(tmp):
    validate = [os.path.join(VENV_BIN, "kubernetes-validate"), "--strict", "--quiet"]
    manifests = [os.path.join(DEPLOY, "kubernetes", f) for f in ("campaign-job.yaml", "merge-job.yaml")]
    r = subprocess.run(validate + manifests, capture_output=True, text=True)
    check(r.returncode == 0, "kubernetes: the manifests pass kubernetes-validate --strict", r.stdout + r.stderr)
    text = open(manifests[0]).read()
    check(schema_rejects(validate, text.replace("completionMode:", "completionMod:"), ".yaml"),
          "kubernetes: a misspelt field (completionMod) fails the schema check")
    docs = list(yaml.safe_load_all(text))
    job = next(d for d in docs if d["kind"] == "Job")
    spec = job["spec"]
    check(spec["completionMode"] == "Indexed", "kubernetes: an Indexed Job")
    container = spec["template"]["spec"]["containers"][0]
    env = {e["name"]: e["value"] for e in container["env"]}
    check(env["DIFFTEST_SHARD_COUNT"] == str(spec["completions"]), "kubernetes: DIFFTEST_SHARD_COUNT equals completions")
    check(container["volumeMounts"][0]["mountPath"] == env["CAMPAIGN"], "kubernetes: the campaign is on the shared volume")
    script = container["args"][0]
    campaign = os.path.join(tmp, "k8s")
    env.update(DIFFTEST_SEEDS=SEEDS, DIFFTEST_FLAGS=FLAGS, CAMPAIGN=campaign)
    results = run_all([(script, dict(env, JOB_COMPLETION_INDEX=str(i)), tmp) for i in range(spec["completions"])])
    for i, r in enumerate(results):
        check(r.returncode == 0 and f"shard {i}/8 from JOB_COMPLETION_INDEX" in r.stdout,
              f"kubernetes: index {i} ran its shard (exit {r.returncode})", r.stderr[-600:])
    retried = run(script, dict(env, JOB_COMPLETION_INDEX="3"), tmp)
    check(retried.returncode == 0 and "resumed from the journal" in retried.stdout,
          "kubernetes: a retried pod resumes its shard", retried.stdout[-600:])
    merge_job = yaml.safe_load(open(manifests[1]))
    mc = merge_job["spec"]["template"]["spec"]["containers"][0]
    menv = {e["name"]: e["value"] for e in mc["env"]}
    menv.update(CAMPAIGN=campaign, DIFFTEST_KNOWN=os.path.join(SOURCE, "corpus"))
    r = run(mc["args"][0], menv, tmp)
    check(r.returncode in (0, 1) and "merged 8 shards" in r.stdout, "kubernetes: the merge Job merged 8 shards", r.stdout[-600:] + r.stderr[-600:])
    check_merged("kubernetes", os.path.join(campaign, "merged"))


def substitute(script, values):
    def one(m):
        key = m.group(1).strip()
        if key not in values:
            raise KeyError(f"an expression the test does not know: {key}")
        return str(values[key])
    return re.sub(r"\$\{\{([^}]*)\}\}", one, script)


def github(tmp):
    workflow = os.path.join(DEPLOY, "github", "campaign.yml")
    schema = [os.path.join(VENV_BIN, "check-jsonschema"), "--builtin-schema", "vendor.github-workflows"]
    r = subprocess.run(schema + [workflow], capture_output=True, text=True)
    check(r.returncode == 0, "github: the workflow passes check-jsonschema's GitHub workflow schema", r.stdout + r.stderr)
    text = open(workflow).read()
    check(schema_rejects(schema, text.replace("runs-on:", "runs_on:"), ".yml"), "github: a misspelt key (runs_on) fails it")
    w = yaml.safe_load(text)
    shards = w["jobs"]["shard"]["strategy"]["matrix"]["shard"]
    check(len(shards) == int(w["env"]["SHARDS"]) == 8, "github: the matrix has SHARDS (8) values")
    check(w["jobs"]["merge"]["needs"] == "shard" and w["jobs"]["merge"]["if"] == "always()",
          "github: the merge job waits for every shard, and runs when some found failures")
    workspace = os.path.join(tmp, "gh")
    os.makedirs(os.path.join(workspace, "build"))
    os.symlink(DIFFTEST, os.path.join(workspace, "build", "difftest"))
    os.symlink(os.path.join(SOURCE, "corpus"), os.path.join(workspace, "corpus"))
    env = dict(w["env"], DIFFTEST_FLAGS=FLAGS)
    env = {k: str(v) for k, v in env.items()}
    artifacts = os.path.join(tmp, "gh-artifacts")
    jobs = []
    for shard in shards:
        values = {"inputs.seeds": SEEDS, "inputs.known": "corpus", "matrix.shard": shard}
        steps = [s for s in w["jobs"]["shard"]["steps"] if s.get("name") == "fuzz one shard"]
        jobs.append((substitute(steps[0]["run"], values), env, workspace))
    for shard, r in zip(shards, run_all(jobs)):
        check(r.returncode == 0, f"github: matrix shard {shard} ran (exit {r.returncode})", r.stderr[-600:])
        for step in w["jobs"]["shard"]["steps"]:
            if step.get("uses", "").startswith("actions/upload-artifact"):
                name = substitute(step["with"]["name"], {"matrix.shard": shard})
                shutil.copytree(os.path.join(workspace, substitute(step["with"]["path"], {"matrix.shard": shard})),
                                os.path.join(artifacts, name))
    merge_steps = w["jobs"]["merge"]["steps"]
    download = next(s for s in merge_steps if s.get("uses", "").startswith("actions/download-artifact"))
    pattern = download["with"]["pattern"].rstrip("*")
    for name in sorted(os.listdir(artifacts)):  # download-artifact with a pattern: one directory per artifact
        if name.startswith(pattern):
            shutil.copytree(os.path.join(artifacts, name), os.path.join(workspace, download["with"]["path"], name))
    script = next(s for s in merge_steps if s.get("name") == "merge and report")["run"]
    r = run(substitute(script, {"inputs.known": "corpus"}), env, workspace)
    check(r.returncode in (0, 1) and "merged 8 shards" in r.stdout, "github: the merge job merged 8 shards", r.stdout[-600:] + r.stderr[-600:])
    check_merged("github", os.path.join(workspace, "merged"))


def slurm(tmp):
    script = os.path.join(DEPLOY, "slurm", "campaign.sbatch")
    text = open(script).read()
    lo, hi = map(int, re.search(r"^#SBATCH --array=(\d+)-(\d+)$", text, re.M).groups())
    campaign = os.path.join(tmp, "slurm")
    env = {"DIFFTEST": DIFFTEST, "SEEDS": SEEDS, "DIFFTEST_FLAGS": FLAGS, "CAMPAIGN": campaign,
           "SLURM_ARRAY_TASK_MIN": str(lo), "SLURM_ARRAY_TASK_MAX": str(hi), "SLURM_ARRAY_TASK_COUNT": str(hi - lo + 1),
           "SLURM_ARRAY_TASK_STEP": "1", "SLURM_CPUS_PER_TASK": "1"}
    ids = list(range(lo, hi + 1))
    results = run_all([(f"bash {script}", dict(env, SLURM_ARRAY_TASK_ID=str(i)), tmp) for i in ids])
    for i, r in zip(ids, results):
        check(r.returncode == 0 and f"shard {i - lo}/{hi - lo + 1} from SLURM_ARRAY_TASK_ID" in r.stdout,
              f"slurm: array task {i} ran its shard (exit {r.returncode})", r.stderr[-600:])
    r = run(f"bash {os.path.join(DEPLOY, 'slurm', 'merge.sbatch')}", dict(env, KNOWN=os.path.join(SOURCE, "corpus")), tmp)
    check(r.returncode in (0, 1) and "merged 8 shards" in r.stdout, "slurm: the merge script merged 8 shards", r.stdout[-600:] + r.stderr[-600:])
    check_merged("slurm", os.path.join(campaign, "merged"))


with tempfile.TemporaryDirectory() as tmp:
    for template in (kubernetes, github, slurm):
        os.makedirs(os.path.join(tmp, template.__name__))
        template(os.path.join(tmp, template.__name__))
if failures:
    print(f"{len(failures)} checks failed")
    sys.exit(1)
print("every template checked")
