#!/bin/sh
# Regenerates the oracle's implied types for tests/implied_type_oracle.rs.
#
# For every providers-schema document in $SHARED/corpus/schemas/*.json and
# $SHARED/corpus/schemas/derived/*.json, runs
#   ctyoracle implied-type --schema DOC --provider P (--resource N | --data-source N)
# once per entry (provider config, every resource, every data source) and writes
# tests/data/implied/<docname>.types.jsonl (derived documents get the prefix
# "derived-"), one line per entry, sorted by provider, kind, name:
#   {"kind":"resource","name":"aws_instance","provider":"registry.terraform.io/hashicorp/aws","type":<type JSON>}
# kind is "provider", "resource" or "data_source" (name is "" for "provider").
# When the oracle rejects an entry the line has "error":"<its stderr>" instead of "type".
# Files that are not providers-schema documents are skipped (and reported).
#
# Usage: tests/data/implied/generate.sh [ORACLE]   (default /tmp/oracle/ctyoracle)
# Environment: SHARED (default /work/shared), JOBS (default: number of CPUs).
# Takes several minutes (the oracle re-reads the whole document for every entry).
set -eu
ORACLE=${1:-/tmp/oracle/ctyoracle}
SHARED=${SHARED:-/work/shared}
OUT=$(cd "$(dirname "$0")" && pwd)
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
[ -x "$ORACLE" ] || { echo "generate.sh: oracle $ORACLE not found (build it with $SHARED/oracle/build.sh)" >&2; exit 2; }
export ORACLE SHARED OUT JOBS
exec python3 - <<'PY'
import concurrent.futures, glob, json, os, subprocess, sys

oracle, shared, out, jobs = (os.environ[k] for k in ("ORACLE", "SHARED", "OUT", "JOBS"))
base = os.path.join(shared, "corpus", "schemas")
docs = [(p, "") for p in sorted(glob.glob(os.path.join(base, "*.json")))]
docs += [(p, "derived-") for p in sorted(glob.glob(os.path.join(base, "derived", "*.json")))]

def run(doc, prov, kind, name):
    args = [oracle, "implied-type", "--schema", doc, "--provider", prov]
    if kind == "resource":
        args += ["--resource", name]
    elif kind == "data_source":
        args += ["--data-source", name]
    p = subprocess.run(args, capture_output=True, text=True)
    line = {"kind": kind, "name": name, "provider": prov}
    if p.returncode == 0:
        line["type"] = json.loads(p.stdout)
    else:
        line["error"] = p.stderr.strip()
    return line

total = 0
with concurrent.futures.ThreadPoolExecutor(max_workers=int(jobs)) as pool:
    for path, prefix in docs:
        with open(path, "rb") as f:
            doc = json.load(f)
        if not isinstance(doc, dict) or "provider_schemas" not in doc:
            print(f"skip {path}: not a providers-schema document", file=sys.stderr)
            continue
        entries = []
        for prov in sorted(doc["provider_schemas"] or {}):
            ps = doc["provider_schemas"][prov] or {}
            if ps.get("provider") is not None:
                entries.append((prov, "provider", ""))
            for kind, key in (("resource", "resource_schemas"), ("data_source", "data_source_schemas")):
                for name in sorted(ps.get(key) or {}):
                    entries.append((prov, kind, name))
        lines = list(pool.map(lambda e: run(path, *e), entries))
        name = prefix + os.path.basename(path)[: -len(".json")] + ".types.jsonl"
        with open(os.path.join(out, name), "w", encoding="utf-8") as f:
            for line in lines:
                f.write(json.dumps(line, ensure_ascii=False, separators=(",", ":"), sort_keys=True) + "\n")
        errors = sum(1 for l in lines if "error" in l)
        print(f"{name}: {len(lines)} entries ({errors} rejected by the oracle)", file=sys.stderr)
        total += len(lines)
print(f"total: {total} entries", file=sys.stderr)
PY
