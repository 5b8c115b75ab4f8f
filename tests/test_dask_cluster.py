"""A real Dask cluster on localhost, as on a cluster: ``dask scheduler`` and two ``dask worker``
processes, then ``dpproofs sweep`` and a ``dpproofs check`` subset through ``--scheduler``, with a
worker killed (SIGKILL) while it runs a task: the task runs again on the other worker and the result
is complete and identical to the one-process result (dpproofs/parallel.py).

Marker ``dask_cluster`` (run with ``pytest -m dask_cluster -n 0``): about a minute on 2 cores.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dpproofs import parallel

pytestmark = [
    pytest.mark.dask_cluster,
    pytest.mark.skipif(not parallel.dask_available(), reason="needs the dask extra (pip install 'dpproofs[dask]')"),
]

ROOT = Path(__file__).resolve().parents[1]
#: Seconds to wait for the scheduler and the workers to come up (a loaded 2-core machine: ~5 s).
START_TIMEOUT = 60
SWEEP = ["--sigma", "0.7", "0.9", "1.1", "1.3", "--epochs", "1", "2", "3", "--dataset-size", "50000", "--batch-size",
         "250", "--delta", "1e-5", "--accountant", "pld"]
CHECKED = ["abadi2016.lemma_c1*", "mironov2017.corollary1*", "zhu2022.composition*"]


def _environment():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return env


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Cluster:
    """A scheduler and workers, each its own process (``python -m dask scheduler|worker``)."""

    def __init__(self, tmp_path):
        self.tmp_path, self.env = tmp_path, _environment()
        self.address = f"tcp://127.0.0.1:{_free_port()}"
        self.processes = []
        self.scheduler = self._spawn("scheduler", ["scheduler", "--host", "127.0.0.1", "--port",
                                                   self.address.rsplit(":", 1)[1], "--no-dashboard"])

    def _spawn(self, name, arguments):
        log = open(self.tmp_path / f"{name}-{len(self.processes)}.log", "w")
        process = subprocess.Popen([sys.executable, "-m", "dask", *arguments], stdout=log, stderr=log, env=self.env)
        self.processes.append(process)
        return process

    def worker(self):
        # no nanny: the process killed is the worker itself (a nanny would restart it in place)
        return self._spawn("worker", ["worker", self.address, "--nthreads", "1", "--no-nanny", "--no-dashboard"])

    def client(self):
        from distributed import Client

        return Client(self.address, timeout=f"{START_TIMEOUT}s")

    def stop(self):
        for process in reversed(self.processes):
            if process.poll() is None:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()


@pytest.fixture
def cluster(tmp_path):
    running = _Cluster(tmp_path)
    try:
        yield running
    finally:
        running.stop()


def _kill_a_busy_worker(client, workers, command):
    """SIGKILL the worker process running a task of ``command`` (a Popen), while ``command`` runs;
    returns the pid killed."""
    deadline = time.monotonic() + START_TIMEOUT
    by_pid = {w.pid: w for w in workers}
    pid_of = client.run(os.getpid)  # worker address -> its process id
    while time.monotonic() < deadline:
        assert command.poll() is None, "the command ended before a worker could be killed mid-task"
        busy = [address for address, keys in client.processing().items() if keys]
        pids = [pid_of[a] for a in busy if pid_of.get(a) in by_pid]
        if pids:
            time.sleep(0.3)  # inside the task
            os.kill(pids[0], signal.SIGKILL)
            by_pid[pids[0]].wait(timeout=20)
            return pids[0]
        time.sleep(0.05)
    raise AssertionError("no worker got a task")


def _dpproofs(*arguments):
    return subprocess.Popen([sys.executable, "-m", "dpproofs", *arguments], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=_environment(), cwd=ROOT)


def test_a_sweep_and_a_check_survive_a_worker_killed_mid_task(cluster, tmp_path):
    # the one-process results first
    reference = tmp_path / "reference"
    done = _dpproofs("sweep", *SWEEP, "--workers", "1", "--out", str(reference))
    assert done.wait(timeout=300) == 0, done.stderr.read()
    checked = _dpproofs("check", *CHECKED, "--workers", "1", "--json")
    out, err = checked.communicate(timeout=300)
    assert checked.returncode == 0, err
    expected_rows = [_without_time(r) for r in json.loads(out)["claims"]]

    workers = [cluster.worker(), cluster.worker()]
    with cluster.client() as client:
        client.wait_for_workers(2, timeout=START_TIMEOUT)
        table = tmp_path / "on-cluster"
        sweep = _dpproofs("sweep", *SWEEP, "--scheduler", cluster.address, "--out", str(table))
        killed = _kill_a_busy_worker(client, workers, sweep)
        _, err = sweep.communicate(timeout=300)
        assert sweep.returncode == 0, err
        assert (table.with_suffix(".csv")).read_bytes() == (reference.with_suffix(".csv")).read_bytes()
        assert (table.with_suffix(".json")).read_bytes() == (reference.with_suffix(".json")).read_bytes()

        workers = [w for w in workers if w.pid != killed] + [cluster.worker()]
        client.wait_for_workers(2, timeout=START_TIMEOUT)
        check = _dpproofs("check", *CHECKED, "--scheduler", cluster.address, "--json")
        _kill_a_busy_worker(client, workers, check)
        out, err = check.communicate(timeout=300)
    assert check.returncode == 0, err
    result = json.loads(out)
    assert [_without_time(r) for r in result["claims"]] == expected_rows
    assert result["summary"]["scheduler"] == cluster.address


def _without_time(row):
    return {k: v for k, v in row.items() if k != "seconds"}
