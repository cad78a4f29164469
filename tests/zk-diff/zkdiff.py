#!/usr/bin/env python3
"""Differential test: `splitbrain zk-replay` against a real ZooKeeper 3.8 (Debian's package).

Starts ZooKeeperServerMain on a loopback port, generates random operation sequences from a seeded
PRNG over a small path space (so NODEEXISTS, NONODE, BADVERSION, NOTEMPTY, ephemerals of several
sessions, sequential names and watches all happen), runs each sequence on the real server with
kazoo (one KazooClient per session, chrooted to a fresh /zkdiff/seqN so every sequence starts from
an empty tree) and through `splitbrain zk-replay`, and compares the output line by line.

Watch notifications are recorded as the server sends them (kazoo's connection reader, before
kazoo's own dispatch, which drops events once a client is stopped and fires a data and a child
watcher for one NodeDeleted); after every operation each live session does a `sync` round trip,
so whatever the operation fired has arrived before the line is written.

Session expiry: in the expiry sequences session s3 connects through a TCP proxy with a 2 s
timeout. `expire` cuts the proxy (the server closes the connection, so the session's own watches
go, as in the model's `expire`), waits for the server to expire the session (polled with the
`dump` four-letter word), syncs the others (its ephemerals' watches fire), and the session's next
request, queued while cut, gets SESSIONEXPIRED once the proxy lets kazoo reconnect.

  zkdiff.py --bin target/debug/splitbrain [--seed N] [--ops N] [--sequences N] [--self-check]

Prints the counts; exits 1 on any difference not named in INTENDED, 2 on a set-up failure.
"""
import argparse
import json
import logging
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

from kazoo.client import KazooClient
from kazoo.exceptions import (BadVersionError, NoChildrenForEphemeralsError, NodeExistsError,
                              NoNodeError, NotEmptyError, RolledBackError, RuntimeInconsistency,
                              SessionExpiredError)
from kazoo.protocol.serialization import Watch

# Differences the model is meant to have, by name: none today. A difference is named by a
# function of (input op, real line, model line) returning True when it is that difference.
INTENDED = {}

CODES = [(NoNodeError, "NONODE"), (NodeExistsError, "NODEEXISTS"), (BadVersionError, "BADVERSION"),
         (NotEmptyError, "NOTEMPTY"), (NoChildrenForEphemeralsError, "NOCHILDRENFOREPHEMERALS"),
         (SessionExpiredError, "SESSIONEXPIRED")]
TYPES = {1: "NodeCreated", 2: "NodeDeleted", 3: "NodeDataChanged", 4: "NodeChildrenChanged"}
PATHS = ["/a", "/b", "/a/x", "/a/y", "/b/x", "/a/x/z", "/c"]
READ_PATHS = PATHS + ["/"]
SEQ_PREFIXES = ["/a/q-", "/b/q-", "/q-"]
DATA = ["", "x", "y", "zz"]
VERSIONS = [-1, 0, 0, 1, 2]


def code_of(e):
    for cls, name in CODES:
        if isinstance(e, cls):
            return name
    raise e


# ---------------------------------------------------------------------------------------------
# The real server and a proxy whose link can be cut
# ---------------------------------------------------------------------------------------------

def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def four_letter(port, cmd):
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(cmd.encode())
        chunks = []
        while True:
            b = s.recv(65536)
            if not b:
                return b"".join(chunks).decode()
            chunks.append(b)


class Server:
    def __init__(self, workdir):
        self.port = free_port()
        self.dir = workdir
        os.makedirs(os.path.join(workdir, "data"), exist_ok=True)
        cfg = os.path.join(workdir, "zoo.cfg")
        with open(cfg, "w") as f:
            f.write(f"tickTime=200\nminSessionTimeout=400\nmaxSessionTimeout=60000\n"
                    f"dataDir={workdir}/data\nclientPort={self.port}\nclientPortAddress=127.0.0.1\n"
                    f"admin.enableServer=false\nmaxClientCnxns=0\n4lw.commands.whitelist=dump,ruok\n")
        self.log = open(os.path.join(workdir, "server.log"), "w")
        self.proc = subprocess.Popen(
            ["java", "-Xmx256m", "-cp", "/usr/share/java/zookeeper.jar",
             "org.apache.zookeeper.server.ZooKeeperServerMain", cfg],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                if four_letter(self.port, "ruok") == "imok":
                    return
            except OSError:
                pass
            if self.proc.poll() is not None:
                break
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"ZooKeeper did not start; see {workdir}/server.log")

    def has_session(self, sid):
        return ("0x%x" % sid) in four_letter(self.port, "dump")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


class Proxy:
    """Forwards a loopback port to the server; `cut` drops every link and refuses new ones."""

    def __init__(self, target):
        self.target = target
        self.lsock = socket.socket()
        self.lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.lsock.bind(("127.0.0.1", 0))
        self.lsock.listen(8)
        self.port = self.lsock.getsockname()[1]
        self.links = []
        self.cut_off = False
        self.lock = threading.Lock()
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.closed:
            try:
                c, _ = self.lsock.accept()
            except OSError:
                return
            with self.lock:
                if self.cut_off:
                    c.close()
                    continue
                u = socket.create_connection(("127.0.0.1", self.target))
                for s in (c, u):
                    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                self.links.append((c, u))
            threading.Thread(target=self._pump, args=(c, u), daemon=True).start()
            threading.Thread(target=self._pump, args=(u, c), daemon=True).start()

    @staticmethod
    def _pump(a, b):
        try:
            while True:
                d = a.recv(65536)
                if not d:
                    break
                b.sendall(d)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self):
        with self.lock:
            self.cut_off = True
            for c, u in self.links:
                for s in (c, u):
                    try:
                        s.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                    s.close()
            self.links = []

    def heal(self):
        with self.lock:
            self.cut_off = False

    def close(self):
        self.closed = True
        self.cut()
        self.lsock.close()


# ---------------------------------------------------------------------------------------------
# Random sequences
# ---------------------------------------------------------------------------------------------

def gen_sequence(rng, n, with_expiry):
    """n operations on sessions s1..s3, starting with their connects."""
    names = ["s1", "s2", "s3"]
    ops = [{"s": s, "op": "connect"} for s in names]
    state = {s: "live" for s in names}  # live | expired (one request, then connect) | closed
    expire_at = rng.randrange(n // 4, 3 * n // 4) if with_expiry else -1

    def data_op(kind):
        if kind == "create":
            seq = rng.random() < 0.15
            return {"op": "create", "path": rng.choice(SEQ_PREFIXES if seq else PATHS), "data": rng.choice(DATA),
                    "ephemeral": rng.random() < 0.3, "sequential": seq}
        if kind == "delete":
            return {"op": "delete", "path": rng.choice(PATHS), "version": rng.choice(VERSIONS)}
        if kind == "set":
            return {"op": "set", "path": rng.choice(PATHS), "data": rng.choice(DATA), "version": rng.choice(VERSIONS)}
        if kind == "check":
            return {"op": "check", "path": rng.choice(PATHS), "version": rng.choice(VERSIONS)}
        return {"op": kind, "path": rng.choice(READ_PATHS), "watch": rng.random() < 0.6}

    kinds = ["create"] * 25 + ["delete"] * 12 + ["set"] * 12 + ["get"] * 12 + ["exists"] * 10 + \
        ["children"] * 10 + ["multi"] * 8 + ["close"] * 2
    while len(ops) < n:
        if 0 <= expire_at <= len(ops) and state["s3"] == "live":
            expire_at = -1
            ops.append({"s": "s3", "op": "expire"})
            state["s3"] = "expired"
            continue
        s = rng.choice(names)
        if state[s] == "expired":  # its next request gets SESSIONEXPIRED; then a new session
            ops.append({"s": s, **data_op(rng.choice(["get", "exists", "create", "set"]))})
            state[s] = "closed"
            continue
        if state[s] == "closed":
            ops.append({"s": s, "op": "connect"})
            state[s] = "live"
            continue
        kind = rng.choice(kinds)
        if kind == "close":
            ops.append({"s": s, "op": "close"})
            state[s] = "closed"
        elif kind == "multi":
            inner = [data_op(rng.choice(["check", "create", "set", "delete"])) for _ in range(rng.randint(1, 3))]
            ops.append({"s": s, "op": "multi", "ops": inner})
        else:
            ops.append({"s": s, **data_op(kind)})
    return ops


# ---------------------------------------------------------------------------------------------
# Running a sequence on the real server
# ---------------------------------------------------------------------------------------------

class Real:
    def __init__(self, server, chroot, proxied):
        self.server = server
        self.chroot = chroot
        self.proxied = proxied  # session names that connect through a proxy, with a short timeout
        self.clients = {}
        self.proxies = {}
        self.events = []
        self.lock = threading.Lock()
        self.pending = {}  # session -> request queued while cut off

    def _client(self, s):
        if s in self.proxied:
            p = self.proxies.get(s)
            if p is None:
                p = self.proxies[s] = Proxy(self.server.port)
            p.heal()
            c = KazooClient(hosts=f"127.0.0.1:{p.port}{self.chroot}", timeout=2.0)
        else:
            c = KazooClient(hosts=f"127.0.0.1:{self.server.port}{self.chroot}", timeout=30.0)
        c.start(timeout=15)
        conn = c._connection
        orig = conn._read_watch_event

        def record(buffer, offset, c=c, s=s, orig=orig):
            w, _ = Watch.deserialize(buffer, offset)
            with self.lock:
                self.events.append({"s": s, "type": TYPES[w.type], "path": c.unchroot(w.path)})
            return orig(buffer, offset)

        conn._read_watch_event = record
        return c

    def sync_all(self):
        for c in self.clients.values():
            c.sync("/")

    def run(self, i, op):
        s = op["s"]
        out = {"i": i}
        kind = op["op"]
        if kind == "connect":
            self.clients[s] = self._client(s)
            out["ok"] = True
        elif kind == "close":
            c = self.clients.pop(s)
            c.stop()
            c.close()
            out["ok"] = True
        elif kind == "expire":
            c = self.clients.pop(s)
            sid = c.client_id[0]
            self.proxies[s].cut()
            deadline = time.time() + 30
            while self.server.has_session(sid):
                if time.time() > deadline:
                    raise RuntimeError(f"session 0x{sid:x} did not expire")
                time.sleep(0.05)
            self.pending[s] = c
            out["ok"] = True
        elif s in self.pending:
            c = self.pending.pop(s)
            a = self._async(c, op)
            self.proxies[s].heal()
            try:
                a.get(timeout=30)
                raise RuntimeError(f"line {i}: a request on an expired session succeeded")
            except SessionExpiredError:
                out["error"] = "SESSIONEXPIRED"
            c.stop()
            c.close()
        else:
            try:
                out.update(self._op(self.clients[s], op))
            except Exception as e:  # noqa: BLE001 - mapped to a code or re-raised
                out["error"] = code_of(e)
        self.sync_all()
        with self.lock:
            out["watches"] = sorted(self.events, key=lambda e: (e["s"], e["path"], e["type"]))
            self.events = []
        return out

    @staticmethod
    def _async(c, op):
        p = op.get("path", "/")
        if op["op"] in ("create",):
            return c.create_async(p, op.get("data", "").encode())
        if op["op"] == "set":
            return c.set_async(p, op.get("data", "").encode())
        if op["op"] == "exists":
            return c.exists_async(p)
        return c.get_async(p)

    @staticmethod
    def _watch(op):
        return (lambda e: None) if op.get("watch") else None

    def _op(self, c, op):
        k, p = op["op"], op.get("path")
        if k == "create":
            return {"ok": True, "path": c.create(p, op["data"].encode(), ephemeral=op["ephemeral"],
                                                 sequence=op["sequential"])}
        if k == "delete":
            c.delete(p, version=op["version"])
            return {"ok": True}
        if k == "set":
            return {"ok": True, "version": c.set(p, op["data"].encode(), version=op["version"]).version}
        if k == "get":
            d, st = c.get(p, watch=self._watch(op))
            return {"ok": True, "version": st.version, "data": d.decode(), "ephemeral": st.ephemeralOwner != 0,
                    "num_children": st.numChildren}
        if k == "exists":
            st = c.exists(p, watch=self._watch(op))
            return {"ok": True, "exists": True, "version": st.version} if st else {"ok": True, "exists": False}
        if k == "children":
            return {"ok": True, "children": sorted(c.get_children(p, watch=self._watch(op)))}
        if k == "multi":
            t = c.transaction()
            for m in op["ops"]:
                if m["op"] == "check":
                    t.check(m["path"], m["version"])
                elif m["op"] == "create":
                    t.create(m["path"], m["data"].encode(), ephemeral=m["ephemeral"], sequence=m["sequential"])
                elif m["op"] == "set":
                    t.set_data(m["path"], m["data"].encode(), m["version"])
                else:
                    t.delete(m["path"], m["version"])
            res = t.commit()
            errs = [r for r in res if isinstance(r, Exception)]
            if not errs:
                return {"ok": True}
            # kazoo: RolledBackError (code 0) before the failing op, its own error, then
            # RuntimeInconsistency after it (PrepRequestProcessor's multi, 3.8.0 :856-867).
            first = [r for r in errs if not isinstance(r, (RolledBackError, RuntimeInconsistency))]
            return {"error": code_of(first[0])}
        raise ValueError(f"unknown op {k}")

    def close(self):
        for c in list(self.clients.values()) + list(self.pending.values()):
            try:
                c.stop()
                c.close()
            except Exception:  # noqa: BLE001
                pass
        for p in self.proxies.values():
            p.close()


def run_model(binary, ops):
    inp = "".join(json.dumps(o) + "\n" for o in ops)
    r = subprocess.run([binary, "zk-replay", "-"], input=inp, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise RuntimeError(f"zk-replay exited {r.returncode}: {r.stderr.strip()}")
    return [json.loads(line) for line in r.stdout.splitlines()]


def compare(ops, real, model):
    """(unexplained differences, {intended name: count})."""
    diffs, named = [], {}
    if len(real) != len(model):
        diffs.append(f"{len(real)} real lines, {len(model)} model lines")
    for op, r, m in zip(ops, real, model):
        if r == m:
            continue
        name = next((n for n, f in INTENDED.items() if f(op, r, m)), None)
        if name:
            named[name] = named.get(name, 0) + 1
        else:
            diffs.append(f"line {r['i']}: {json.dumps(op)}\n    real:  {json.dumps(r)}\n    model: {json.dumps(m)}")
    return diffs, named


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="target/debug/splitbrain")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ops", type=int, default=10_000, help="operations in all (at least)")
    ap.add_argument("--sequences", type=int, default=40)
    ap.add_argument("--expiry-sequences", type=int, default=5)
    ap.add_argument("--self-check", action="store_true",
                    help="also check that a corrupted model line is reported as a difference")
    a = ap.parse_args()
    # kazoo logs every dropped link of the cut session; the counts below say what matters.
    logging.getLogger("kazoo").setLevel(logging.CRITICAL)
    if shutil.which("java") is None or not os.path.exists("/usr/share/java/zookeeper.jar"):
        print("zk-diff: java or /usr/share/java/zookeeper.jar missing (scripts/setup.sh installs them)")
        return 2
    start = time.time()
    work = tempfile.mkdtemp(prefix="zkdiff-")
    server = Server(work)
    admin = KazooClient(hosts=f"127.0.0.1:{server.port}", timeout=30.0)
    admin.start(timeout=15)
    admin.ensure_path("/zkdiff")
    total_ops, all_diffs, all_named, expiries, first = 0, [], {}, 0, None
    per_seq = -(-a.ops // a.sequences)
    try:
        for k in range(a.sequences):
            rng = random.Random(a.seed * 1_000_003 + k)
            with_expiry = k < a.expiry_sequences
            ops = gen_sequence(rng, per_seq, with_expiry)
            chroot = f"/zkdiff/seq{k}"
            admin.create(chroot)
            real = Real(server, chroot, {"s3"} if with_expiry else set())
            try:
                real_lines = [real.run(i + 1, op) for i, op in enumerate(ops)]
            finally:
                real.close()
            model_lines = run_model(a.bin, ops)
            diffs, named = compare(ops, real_lines, model_lines)
            if first is None:
                first = (ops, real_lines, model_lines)
            for d in diffs:
                all_diffs.append(f"sequence {k} (seed {a.seed}): {d}")
            for n, c in named.items():
                all_named[n] = all_named.get(n, 0) + c
            total_ops += len(ops)
            expiries += sum(1 for o in ops if o["op"] == "expire")
    finally:
        admin.stop()
        admin.close()
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    for d in all_diffs[:20]:
        print(d)
    if a.self_check:
        ops, real_lines, model_lines = first
        bad = json.loads(json.dumps(model_lines))
        j = next(i for i, line in enumerate(bad) if line.get("watches"))
        bad[j]["watches"] = bad[j]["watches"][1:]
        k = next(i for i, line in enumerate(bad) if "version" in line)
        bad[k]["version"] += 1
        before, _ = compare(ops, real_lines, model_lines)
        caught, _ = compare(ops, real_lines, bad)
        ok = len(caught) - len(before) == 2
        print(f"zk-diff self-check: 2 corrupted model lines, {len(caught) - len(before)} more differences reported"
              f" ({'ok' if ok else 'FAILED'})")
        if not ok:
            return 1
    named_s = ", ".join(f"{n}: {c}" for n, c in sorted(all_named.items())) or "none"
    print(f"zk-diff: {total_ops} operations in {a.sequences} sequences ({expiries} session expiries) "
          f"against ZooKeeper 3.8 in {time.time() - start:.1f} s: {len(all_diffs)} differences, "
          f"intended differences named: {named_s}")
    return 1 if all_diffs else 0


if __name__ == "__main__":
    sys.exit(main())
