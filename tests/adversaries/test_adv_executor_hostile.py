"""Issue 33, class 4: executors passed as ``executor=`` -- closed ones are refused up front,
and a task lost with a Dask worker killed without a nanny is resubmitted (its shared data
scattered again), or the error says what happened and what to do."""

from __future__ import annotations

import concurrent.futures as cf
import signal
import subprocess
import sys
import threading
import time

import networkx as nx
import pytest

from anonspread import adversaries, spread
from anonspread.adversaries import _tasks
from anonspread.errors import ExecutorError, InvalidParameterError
from anonspread.spread.protocols import RandomDiffusion


def _snapshot():
    g = nx.cycle_graph(8)
    return adversaries.observe(spread.simulate(g, RandomDiffusion(0.5), 2, rng=0))


@pytest.mark.parametrize("pool", [cf.ThreadPoolExecutor, cf.ProcessPoolExecutor])
def test_a_shut_down_executor_is_refused(pool):
    ex = pool(1)
    ex.shutdown()
    with pytest.raises(InvalidParameterError, match="executor must be open"):
        adversaries.soft_margin_estimate(_snapshot(), RandomDiffusion(0.5), simulations=10,
                                         executor=ex, rng=0)


def test_a_closed_dask_client_is_refused():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cl:
        client = distributed.Client(cl)
        client.close()
        with pytest.raises(InvalidParameterError, match="executor must be open"):
            adversaries.soft_margin_estimate(_snapshot(), RandomDiffusion(0.5), simulations=10,
                                             executor=client, rng=0)


def test_a_broken_process_pool_says_what_to_do():
    class Broken:
        def submit(self, fn, *args):
            f = cf.Future()
            f.set_exception(cf.process.BrokenProcessPool("a child process terminated abruptly"))
            return f

    with pytest.raises(ExecutorError, match="create a new executor and rerun"):
        _tasks.run_tasks(Broken(), len, lambda lost: [((1, 2),)])


def _worker(address, nthreads=1):
    return subprocess.Popen([sys.executable, "-c", "from distributed.cli.dask_worker import main; main()",
                             address, "--no-nanny", "--nthreads", str(nthreads)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_a_task_lost_with_its_worker_and_its_scattered_data_is_resubmitted(tmp_path):
    distributed = pytest.importorskip("distributed")
    import dask

    killed = tmp_path / "killed"  # the tasks finish only once the first worker is dead
    # both tasks run at once on the first worker (two threads) and none is stolen: the data
    # stays there only, and is lost with it (with one thread the second task waited in the
    # first worker's queue, and the scheduler could move it, with a copy of the data, to
    # the second worker: nothing lost, one scatter; seen once in CI)
    with dask.config.set({"distributed.scheduler.work-stealing": False}), \
            distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp", host="127.0.0.1",
                                     dashboard_address=None) as cl, distributed.Client(cl) as client:
        first = _worker(cl.scheduler_address, nthreads=2)
        workers = [first]
        try:
            client.wait_for_workers(1, timeout=90)
            scatters = []

            def make_args(lost):
                # the data lives on the first worker only (scattered before the second joins)
                scatters.append(client.scatter([list(range(10))], broadcast=True, hash=False)[0])
                return [(scatters[-1], k) for k in range(2)]

            def slow(data, k, flag=str(killed)):
                # never done before the kill, however slowly the second worker starts (a
                # fixed sleep let both tasks finish first on a loaded machine: nothing lost)
                import os
                import time

                start = time.monotonic()
                while not os.path.exists(flag) and time.monotonic() - start < 120:
                    time.sleep(0.05)
                return sum(data) + k

            def kill_the_first_worker_once_a_second_joined():
                time.sleep(1)  # both tasks are running on the first worker by now
                workers.append(_worker(cl.scheduler_address))
                while len(client.scheduler_info()["workers"]) < 2:
                    time.sleep(0.1)
                first.send_signal(signal.SIGKILL)
                first.wait()
                killed.touch()

            threading.Thread(target=kill_the_first_worker_once_a_second_joined, daemon=True).start()
            assert _tasks.run_tasks(client, slow, make_args) == [45, 46]
            assert len(scatters) >= 2  # the lost data was scattered again
        finally:
            for w in workers:
                w.kill()
                w.wait()
