"""Run independent tasks in this process, on a local Dask cluster, or on an existing one.

:class:`Runner` maps a pure function over a list of inputs and returns the outcomes in input
order, whatever the number of workers and the order in which they finish: a task is a pure
function of its inputs (and of the seed among them), so the result does not depend on the
scheduling. Three ways to run, chosen by the arguments:

* ``workers=1``: every task in this process, one after the other;
* ``workers=N`` (N > 1): a pool of N local worker *processes* (the tasks are CPU-bound Python:
  threads would share one interpreter lock), started by ``fork`` on Linux, so a worker begins
  with this process's imports instead of importing numpy, scipy and dpproofs again
  (a ``dask.distributed.LocalCluster`` cost about 6 s of CPU to start on a 28 s sweep; the pool
  needs neither Dask nor a scheduler process);
* ``scheduler="tcp://host:8786"``: a ``dask.distributed.Client`` on a cluster started elsewhere
  (``dask scheduler`` and ``dask worker tcp://host:8786``; Kubernetes, SLURM through
  dask-jobqueue). Only this mode needs the optional extra ``dpproofs[dask]``.

Fault tolerance: a worker that dies in the middle of a task (killed, out of memory) loses its
task, which runs again: on a cluster the scheduler sends it to another worker (up to Dask's
``distributed.scheduler.allowed-failures`` deaths per task); the local pool is started afresh
and given the tasks not yet finished (at most :data:`RETRIES` times). The function being pure,
the rerun gives the same value. Every task runs with OpenBLAS on one thread (:func:`one_blas_thread`): a
matrix-vector product splits its work by the number of threads, and so rounds differently (the
tight epsilon of one sweep setting moved in its 15th digit between 1 and 2 threads), while the
same bytes are promised whatever runs the tasks. A task that *raises* is not retried: its outcome is a :class:`Failure`
naming the exception, and the other tasks finish.
"""

import contextlib
import importlib.util
import time

from dpproofs import _validate

__all__ = ["Runner", "Failure", "dask_available", "RETRIES", "one_blas_thread", "pool_context"]

#: Extra attempts made of a task whose worker died or whose call failed outside the function (the
#: function's own exceptions are caught and returned as a :class:`Failure`, never retried).
RETRIES = 3


def dask_available():
    """True when ``dask.distributed`` can be imported (the optional extra ``dpproofs[dask]``)."""
    try:
        return importlib.util.find_spec("dask") is not None and importlib.util.find_spec("distributed") is not None
    except (ImportError, ValueError):  # a module blocked in sys.modules (None) has no spec
        return False


class Failure:
    """The outcome of a task that raised: the exception's type name and message (picklable,
    comparable), never the exception itself (it may not pickle back from a worker)."""

    __slots__ = ("kind", "message")

    def __init__(self, kind, message):
        self.kind, self.message = kind, message

    def __eq__(self, other):
        return isinstance(other, Failure) and (self.kind, self.message) == (other.kind, other.message)

    def __hash__(self):
        return hash((self.kind, self.message))

    def __repr__(self):
        return f"Failure({self.kind!r}, {self.message!r})"

    def __str__(self):
        return f"{self.kind}: {self.message}"


@contextlib.contextmanager
def one_blas_thread():
    """Run the block with every BLAS loaded in this process on one thread (threadpoolctl: OpenBLAS,
    MKL, BLIS); the thread counts are restored after. A matrix product split over threads rounds
    differently, so this keeps a task's floats the same whatever the worker's thread settings."""
    import threadpoolctl

    with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
        yield


def _guarded(function, item):
    """``function(item)`` on one BLAS thread, or a :class:`Failure` when it raises an ``Exception``."""
    try:
        with one_blas_thread():
            return function(item)
    except Exception as error:  # reported with the task's input by the caller; the others go on
        return Failure(type(error).__name__, str(error))


def _preload(modules):
    """Import ``modules`` in a worker (the warm-up: the first task then pays no import)."""
    for name in modules:
        importlib.import_module(name)
    return True


def pool_context():
    """``fork`` on Linux (a worker starts with this process's imports), else ``spawn`` (Python's
    default on macOS and Windows, where forking a process that has loaded system frameworks is
    unsafe; a script then needs the ``if __name__ == "__main__":`` guard)."""
    import multiprocessing
    import sys

    return multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")


class Runner:
    """Where tasks run: this process, a pool of local processes, or a Dask scheduler's cluster.

    Use as a context manager (the local pool or the client is stopped on exit)::

        with Runner(workers=2) as runner:
            outcomes = runner.map(function, inputs)

    Args:
        workers (int | None): local worker processes; 1 runs every task in this process; None
            means one per core this process may use. Ignored with ``scheduler``.
        scheduler (str | None): address of a running Dask scheduler (``tcp://host:8786``).
        preload (tuple[str, ...]): modules every worker imports before its first task.

    Raises:
        InvalidArgument: ``workers`` outside [1, 1024], or ``scheduler`` given without Dask
            installed (``pip install 'dpproofs[dask]'``).
    """

    def __init__(self, workers=1, scheduler=None, preload=()):
        if workers is None:
            workers = default_workers()
        self.workers = _validate.integer("workers", workers, 1, 1024)
        self.scheduler = scheduler
        self.preload = tuple(preload)
        if scheduler is not None and not dask_available():
            from dpproofs.errors import InvalidArgument

            raise InvalidArgument(f"scheduler={scheduler!r} needs Dask: pip install 'dpproofs[dask]'")
        self.client = self.pool = None
        #: how many times the local pool was started afresh after a worker died
        self.restarts = 0

    @property
    def mode(self):
        """``"process"`` (this one), ``"local"`` (a pool of local processes) or ``"scheduler"``."""
        if self.scheduler is not None:
            return "scheduler"
        return "local" if self.workers > 1 else "process"

    def __enter__(self):
        mode = self.mode
        if mode == "process":
            return self
        if mode == "local":
            _preload(self.preload)  # imported here once: every forked worker starts with them
            self.pool = self._new_pool()
            return self
        import logging

        from distributed import Client

        logging.getLogger("distributed").setLevel(logging.ERROR)  # stdout/stderr stay the command's
        self.client = Client(self.scheduler, timeout="30s")
        if self.preload:
            self.client.run(_preload, self.preload)
        return self

    def _new_pool(self):
        from concurrent.futures import ProcessPoolExecutor

        return ProcessPoolExecutor(max_workers=self.workers, mp_context=pool_context(),
                                   initializer=_preload, initargs=(self.preload,))

    def __exit__(self, *exc):
        if self.client is not None:
            self.client.close()
        if self.pool is not None:
            # an error or Ctrl-C: the queued tasks are dropped, not run to completion
            self.pool.shutdown(wait=True, cancel_futures=True)
        self.client = self.pool = None
        return False

    def map(self, function, items, on_result=None):
        """The outcomes of ``function`` on each item, in the order of ``items``.

        Args:
            function (callable): a pure, picklable (module-level) function of one argument.
            items (list): the inputs, each picklable.
            on_result (callable | None): called as ``on_result(index, outcome)`` as each task
                finishes (in finishing order), e.g. to show progress.

        Returns:
            list: ``function(item)`` for each item, or a :class:`Failure` where it raised.
        """
        items = list(items)
        outcomes = [None] * len(items)
        if self.pool is not None:
            return self._map_on_pool(function, items, outcomes, on_result)
        if self.client is None:
            if self.mode != "process":
                raise RuntimeError("Runner.map on a pool or a cluster needs `with Runner(...) as runner:`")
            for index, item in enumerate(items):
                outcomes[index] = _guarded(function, item)
                if on_result is not None:
                    on_result(index, outcomes[index])
            return outcomes
        from distributed import as_completed

        token = f"{getattr(function, '__name__', 'task')}-{time.time_ns()}"
        futures = [self.client.submit(_guarded, function, item, key=f"{token}-{index}", retries=RETRIES, pure=False)
                   for index, item in enumerate(items)]
        position = {future.key: index for index, future in enumerate(futures)}
        for future in as_completed(futures):
            index = position[future.key]
            try:
                outcomes[index] = future.result()
            except Exception as error:  # the task's workers died RETRIES + allowed-failures times (KilledWorker)
                outcomes[index] = Failure(type(error).__name__, str(error))
            future.release()
            if on_result is not None:
                on_result(index, outcomes[index])
        return outcomes


    def _map_on_pool(self, function, items, outcomes, on_result):
        """:meth:`map` on the local pool; a pool broken by a dead worker is started afresh with
        the tasks not yet finished, at most :data:`RETRIES` times (then they are failures)."""
        from concurrent.futures import as_completed
        from concurrent.futures.process import BrokenProcessPool

        waiting = list(range(len(items)))
        for attempt in range(RETRIES + 1):
            futures = {self.pool.submit(_guarded, function, items[index]): index for index in waiting}
            broken, finished = None, set()
            for future in as_completed(futures):
                index = futures[future]
                try:
                    outcomes[index] = future.result()
                except BrokenProcessPool as error:  # a worker died: this task and the queued ones
                    broken = error
                    continue
                finished.add(index)
                if on_result is not None:
                    on_result(index, outcomes[index])
            waiting = [index for index in waiting if index not in finished]
            if broken is None or not waiting:
                break
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.restarts += 1
            if attempt == RETRIES:
                for index in waiting:
                    outcomes[index] = Failure(type(broken).__name__, str(broken))
                    if on_result is not None:
                        on_result(index, outcomes[index])
                break
            self.pool = self._new_pool()
        return outcomes


def default_workers():
    """One worker per core this process may run on."""
    import os

    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)
