"""One call in a forked process with a timeout: the harness of the fuzz scripts (pld_fuzz.py,
calibrate_fuzz.py). Fork start only (the callable and its argument are not pickled)."""
import multiprocessing as mp
import time


def _worker(run, cfg, conn):
    conn.send(run(cfg))


def run_forked(run, cfg, timeout):
    """``run(cfg)`` in a forked process: its dict, or ``{"err": "TIMEOUT"}`` after ``timeout``
    seconds (the process is killed); ``"wall"`` (seconds, parent's clock) added either way."""
    ctx = mp.get_context("fork")
    receive, send = ctx.Pipe(False)
    process = ctx.Process(target=_worker, args=(run, cfg, send))
    start = time.perf_counter()
    process.start()
    res = receive.recv() if receive.poll(timeout) else {"err": "TIMEOUT"}
    process.join(1)
    if process.is_alive():
        process.kill()
    res["wall"] = time.perf_counter() - start
    return res
