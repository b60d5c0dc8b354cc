#!/usr/bin/env python3
"""Builds perf/workloads/aws_instance/, the workload of the typed (`#[derive(Deserialize)]`) peers.

usage: python3 perf/make_aws_instance.py [--shared DIR] [--oracle PATH] [--check]

The value is every aws_instance state of the corpus (`$SHARED/corpus/states/driftctl/`, three
instances), list repeated to about 1 MB of MessagePack, typed by the aws_instance schema of the
derived driftctl aws 3.62.0 document (`$SHARED/corpus/schemas/derived/`, the schema
`shared/workloads/make.py` picks for aws_instance in `aws_states`). Two of the three instances
carry one attribute that schema lacks (`network_interface_id`, null; `unsupported_attribute`,
a driftctl test's deliberate extra): it is removed, as the provider's state upgrade does
(terraform-plugin-sdk's UpgradeResourceState drops attributes its schema does not have).

Every encoding is go-cty's own: the value goes through `ctyoracle transcode` (go-cty 1.12.1
`msgpack.Marshal` and `ctyjson.Marshal`), and the expected DUMP is `ctyoracle decode`'s. The
files are those of a shared workload (see `$SHARED/workloads/README.md`): `schema.json` (bare
block, descriptions left out: one list block `aws_instance`), `type.json`, `value.msgpack`,
`value.json`, `value.msgpack.dump.json.gz` (the DUMP of both encodings; `value.json.dump.json.gz`
only if the JSON's differs) and `manifest.json` (sizes, sha256, provenance).

--check rebuilds into a temporary folder and compares with the stored files (a `.gz` by its
content), and decodes the stored inputs with the oracle against the stored DUMP; it changes
nothing. Output is byte-identical from run to run. Only Python's standard library and the oracle
(`$CTYORACLE`, else `$SHARED/oracle/ctyoracle`; build it with `$SHARED/oracle/build.sh`).
"""

import argparse
import gzip
import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(HERE, "workloads", "aws_instance")

SCHEMA_DOC = "schemas/derived/driftctl-aws-3.62.0.schemas.json"
PROVIDER = "registry.terraform.io/hashicorp/aws"
# (state file under corpus/, attribute removed before typing or None)
STATES = [
    ("states/driftctl/state-test-aws_ec2_instance.tfstate", None),
    ("states/driftctl/state-testdata-v4-valid.tfstate", "network_interface_id"),
    ("states/driftctl/state-test-unsupported_attribute.tfstate", "unsupported_attribute"),
]
TARGET_MSGPACK_BYTES = 1_000_000


def die(msg):
    sys.stderr.write("make_aws_instance.py: %s\n" % msg)
    sys.exit(2)


def compact(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def gz(data):
    return gzip.compress(data, compresslevel=9, mtime=0)


def strip_docs(block):
    """The block without descriptions (they do not change the type)."""
    out = {k: v for k, v in block.items()
           if k not in ("description", "description_kind", "attributes", "block_types")}
    if "attributes" in block:
        out["attributes"] = {n: {k: v for k, v in a.items()
                                 if k not in ("description", "description_kind")}
                             for n, a in block["attributes"].items()}
    if "block_types" in block:
        out["block_types"] = {n: dict({k: v for k, v in bt.items() if k != "block"},
                                      block=strip_docs(bt.get("block") or {}))
                              for n, bt in block["block_types"].items()}
    return out


class Oracle:
    def __init__(self, path, tmp):
        self.path, self.tmp, self.n = path, tmp, 0

    def file(self, suffix, data):
        self.n += 1
        p = os.path.join(self.tmp, "%d%s" % (self.n, suffix))
        with open(p, "wb") as f:
            f.write(data)
        return p

    def run(self, *args, stdin=None):
        p = subprocess.run([self.path] + list(args), input=stdin, capture_output=True)
        if p.returncode != 0:
            raise RuntimeError("ctyoracle %s: exit %d: %s" % (
                args[0], p.returncode, p.stderr.decode(errors="replace").strip()[:2000]))
        return p.stdout


def instances(corpus):
    """The aws_instance attributes of each state file, in file and state order."""
    out = []
    for rel, drop in STATES:
        with open(os.path.join(corpus, rel)) as f:
            st = json.load(f)
        for r in st.get("resources") or []:
            if r.get("type") != "aws_instance" or r.get("mode") != "managed":
                continue
            for inst in r.get("instances") or []:
                attrs = dict(inst["attributes"])
                if drop is not None:
                    if drop not in attrs:
                        die("%s: no attribute %r to remove" % (rel, drop))
                    del attrs[drop]
                out.append(attrs)
    return out


def build(shared, oracle, dumpcmp, out):
    corpus = os.path.join(shared, "corpus")
    with open(os.path.join(corpus, SCHEMA_DOC)) as f:
        doc = json.load(f)
    block = doc["provider_schemas"][PROVIDER]["resource_schemas"]["aws_instance"]["block"]
    schema = {"block_types": {"aws_instance": {"nesting_mode": "list", "block": strip_docs(block)}}}
    files = {}
    files["schema.json"] = (compact(schema) + "\n").encode()
    schema_path = oracle.file(".schema.json", files["schema.json"])
    tysrc = ["--schema", schema_path]
    ty = json.loads(oracle.run("implied-type", *tysrc))
    files["type.json"] = (compact(ty) + "\n").encode()
    type_path = oracle.file(".type.json", files["type.json"])

    insts = instances(corpus)
    base = oracle.run("transcode", *tysrc, "--from", "json", "--to", "msgpack", "-", "-",
                      stdin=json.dumps({"aws_instance": insts}).encode())
    repeat = max(1, math.ceil(TARGET_MSGPACK_BYTES / len(base)))
    value = json.dumps({"aws_instance": insts * repeat}).encode()
    mp = oracle.run("transcode", *tysrc, "--from", "json", "--to", "msgpack", "-", "-", stdin=value)
    files["value.msgpack"] = mp
    mp_dump = oracle.run("decode", *tysrc, "--format", "msgpack", "-", stdin=mp)
    files["value.msgpack.dump.json.gz"] = gz(mp_dump)
    js = oracle.run("transcode", *tysrc, "--from", "msgpack", "--to", "json", "-", "-", stdin=mp)
    files["value.json"] = js
    js_dump = oracle.run("decode", *tysrc, "--format", "json", "-", stdin=js)
    c = subprocess.run([sys.executable, dumpcmp, type_path, oracle.file(".a.json", mp_dump),
                        oracle.file(".b.json", js_dump)], capture_output=True)
    if c.returncode == 0:
        json_dump = "value.msgpack.dump.json.gz"
    else:
        files["value.json.dump.json.gz"] = gz(js_dump)
        json_dump = "value.json.dump.json.gz"
    if b"\\" in js:
        die("value.json has escaped strings; the typed peers' check assumes none")

    manifest = {
        "name": "aws_instance",
        "generator": "perf/make_aws_instance.py",
        "oracle": "ctyoracle (go-cty 1.12.1)",
        "schema": "corpus/%s, resource aws_instance (descriptions left out), as the one list "
                  "block aws_instance" % SCHEMA_DOC,
        "sources": ["corpus/%s%s" % (rel, "" if drop is None else " (attribute %s removed)" % drop)
                    for rel, drop in STATES],
        "instances": len(insts),
        "repeat": repeat,
        "base_msgpack_bytes": len(base),
        "msgpack_dump": "value.msgpack.dump.json.gz",
        "json_dump": json_dump,
        "files": {},
    }
    for name in sorted(files):
        b = files[name]
        entry = {"bytes": len(b), "sha256": sha256(b)}
        if name.endswith(".gz"):
            content = gzip.decompress(b)
            entry.update(content_bytes=len(content), content_sha256=sha256(content))
        manifest["files"][name] = entry
    files["manifest.json"] = (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode()
    os.makedirs(out, exist_ok=True)
    for name, b in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(b)
    return files


def check(shared, oracle, dumpcmp, tmp):
    fresh = build(shared, oracle, dumpcmp, os.path.join(tmp, "fresh"))
    bad = 0
    stored_names = sorted(n for n in os.listdir(OUT) if n != "README.md")
    if stored_names != sorted(fresh):
        print("FAIL files: stored %s, built %s" % (stored_names, sorted(fresh)))
        bad += 1
    for name, b in sorted(fresh.items()):
        try:
            with open(os.path.join(OUT, name), "rb") as f:
                stored = f.read()
        except OSError as e:
            print("FAIL %s: %s" % (name, e))
            bad += 1
            continue
        if name.endswith(".gz"):
            stored, b = gzip.decompress(stored), gzip.decompress(b)
        ok = stored == b
        bad += not ok
        print("%s %s is what the script builds" % ("ok  " if ok else "FAIL", name))
    tysrc = ["--schema", os.path.join(OUT, "schema.json")]
    with open(os.path.join(OUT, "manifest.json")) as f:
        manifest = json.load(f)
    for fmt in ("msgpack", "json"):
        with open(os.path.join(OUT, "value." + fmt), "rb") as f:
            got = oracle.run("decode", *tysrc, "--format", fmt, "-", stdin=f.read())
        with open(os.path.join(OUT, manifest[fmt + "_dump"]), "rb") as f:
            want = gzip.decompress(f.read())
        c = subprocess.run([sys.executable, dumpcmp, os.path.join(OUT, "type.json"),
                            oracle.file(".want.json", want), oracle.file(".got.json", got)],
                           capture_output=True)
        ok = c.returncode == 0
        bad += not ok
        print("%s value.%s decodes (go-cty) to %s%s" % (
            "ok  " if ok else "FAIL", fmt, manifest[fmt + "_dump"],
            "" if ok else ": " + c.stdout.decode().strip()[:500]))
    print("check: %d failed" % bad)
    return 1 if bad else 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shared", help="the shared checkout (default $TFWIRE_SHARED, else ../shared)")
    ap.add_argument("--oracle", help="ctyoracle binary (default $CTYORACLE, else SHARED/oracle/ctyoracle)")
    ap.add_argument("--check", action="store_true", help="compare with the stored files, write nothing")
    args = ap.parse_args(argv)
    shared = os.path.abspath(args.shared or os.environ.get("TFWIRE_SHARED")
                             or os.path.join(ROOT, "..", "shared"))
    if not os.path.isdir(os.path.join(shared, "corpus")):
        die("%s has no corpus/ (give --shared DIR)" % shared)
    oracle_path = args.oracle or os.environ.get("CTYORACLE") or os.path.join(shared, "oracle", "ctyoracle")
    if not (os.path.isfile(oracle_path) and os.access(oracle_path, os.X_OK)):
        die("ctyoracle not found at %s (give --oracle PATH or set CTYORACLE; build it with "
            "SHARED/oracle/build.sh)" % oracle_path)
    dumpcmp = os.path.join(shared, "oracle", "dumpcmp.py")
    with tempfile.TemporaryDirectory(prefix="aws_instance-") as tmp:
        oracle = Oracle(os.path.abspath(oracle_path), tmp)
        if args.check:
            return check(shared, oracle, dumpcmp, tmp)
        files = build(shared, oracle, dumpcmp, OUT)
    for name in sorted(files):
        print("%-28s %9d bytes" % (name, len(files[name])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
